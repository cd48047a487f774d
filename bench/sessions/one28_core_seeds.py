"""one28: a core_fingerprints seed workload driven over many drive seeds (moved.py core uses
two): peak held MB median, mean and range, on the core PYTHONPATH points at.

    PYTHONHASHSEED=0 PYTHONPATH=SRC python bench/sessions/one28_core_seeds.py
        running-total 4xinf,2xinf 20
"""
import os
import statistics
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # bench/
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != HERE]
sys.path.append(HERE)

import core_fingerprints as cf  # noqa: E402
from tidegate import bridge  # noqa: E402
from tidegate import core as C  # noqa: E402
from tidegate.policy import Policy  # noqa: E402
from tidegate.sim.workloads import build  # noqa: E402
from tidegate.testing import drive  # noqa: E402

for name in sys.argv[1].split(","):
    store = name.startswith("s-")
    w = build(name[2:] if store else name, 40, 190e6, store=store)
    dsk, plan, sizes = cf._graph(w.graph, w.keys)
    model = w.model().sizes
    for shape in sys.argv[2].split(","):
        threads, budget = int(shape.split("x")[0]), float(shape.split("x")[1])
        peaks = []
        for seed in range(int(sys.argv[3])):
            g = bridge.to_taskgraph(plan.tasks, plan.outputs, plan.supplied, "dfs",
                                    plan.dependencies, None, sizes)
            c = C.Scheduler(g, [(threads, budget)], Policy())
            drive(c, seed=seed, size=lambda i, g=g: float(model.get(g.keys[i], 8)))
            peaks.append(c.workers[0].peak_held / 1e6)
        print(name, shape, f"median {statistics.median(peaks):.0f} "
              f"mean {statistics.mean(peaks):.0f} "
              f"[{min(peaks):.0f}..{max(peaks):.0f}]", flush=True)
