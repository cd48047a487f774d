"""chain24: peak held and tasks started of core_fingerprints' anomaly 4xinf (both forms)."""
import math, os, sys
here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
sys.path.append(here)
import core_fingerprints as cf
from tidegate import bridge
from tidegate.core import Scheduler
from tidegate.policy import Policy
from tidegate.sim.workloads import build
from tidegate.testing import drive

for store in (False, True):
    w = build("anomaly", 40, 190e6, store=store)
    dsk, plan, sizes = cf._graph(w.graph, w.keys)
    model = w.model().sizes
    for seed in (0, 1):
        g = bridge.to_taskgraph(plan.tasks, plan.outputs, plan.supplied, "dfs", plan.dependencies,
                                None, sizes)
        core = Scheduler(g, [(4, math.inf)], Policy())
        runs, _ = drive(core, seed=seed, size=lambda i: float(model.get(g.keys[i], 8)))
        print(f"{'s-' if store else ''}anomaly 4xinf s{seed}: peak held {core.workers[0].peak_held/1e9:.2f} GB")
