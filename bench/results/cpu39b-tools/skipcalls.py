"""(cpu39b, session 39) Held.skip's calls in twin runs at 100 x 4 (untraced). python skipcalls.py SCALE WORKLOAD...
(from the worktree root, PYTHONHASHSEED=0 PYTHONPATH=<src>)"""
import sys, collections
sys.path.insert(0, "bench")
import plugin_ops
from tidegate.distributed import held
from tidegate.sim import simulate
from tidegate.sim.model import build_model
from tidegate.sim.workloads import build
c = collections.Counter()
o = held.Held.skip
def skip(self, *a, **k):
    c["skip"] += 1
    return o(self, *a, **k)
held.Held.skip = skip
for name in sys.argv[2:]:
    c.clear()
    scale = float(sys.argv[1])
    w = build(name, int(plugin_ops.STEPS[name] * scale), 190e6, store=False)
    model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
    r = simulate(model, workers=100, threads_per_worker=4, policy="tidegate", bandwidth="1GB/s", record_memory=False)
    print(name, scale, len(r.trace.tasks), dict(c), flush=True)
