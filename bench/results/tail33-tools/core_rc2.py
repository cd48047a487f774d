import sys
sys.path.insert(0, "/work/wt/tail33/bench")
import core_fingerprints as cf
from tidegate import bridge, policy as P
from tidegate.core import Scheduler
from tidegate.policy import Policy
from tidegate.sim.workloads import build
from tidegate.testing import drive
from dask.utils import key_split
name, seed, threads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
store = name.startswith("s-")
w = build(name[2:] if store else name, 40, 190e6, store=store)
dsk, plan, sizes = cf._graph(w.graph, w.keys)
model = w.model().sizes
for v in (False, True):
    P.READ_ON_KEEPS = v
    g = bridge.to_taskgraph(plan.tasks, plan.outputs, plan.supplied, "dfs", plan.dependencies, None, sizes)
    c = Scheduler(g, [(threads, float("inf"))], Policy())
    size = lambda i, g=g: float(model.get(g.keys[i], 8))
    hist = []
    def ev(core):
        wk = core.workers[0]
        hist.append((wk.held + wk.estimated, core.roots_held, sorted(key_split(g.keys[t])[:8]+str(g.keys[t][1:2]) for t in core._in_memory[0] if model.get(g.keys[t],0) > 5e7)))
    runs, _ = drive(c, seed=seed, size=size, on_event=ev)
    b = c.books.workers[list(c.books.workers)[0]] if hasattr(c, "books") else None
    i = max(range(len(hist)), key=lambda j: hist[j][0])
    sh = lambda k: key_split(k)[:10] + str(k[1:] if isinstance(k, tuple) else "")
    print(v, "peak", hist[i][0] / 1e6, "at event", i, "roots_held", hist[i][1], hist[i][2])
    print("   runs up to there:", " ".join(sh(g.keys[t]) for t in runs[max(0, i - 10): i + 8]))
