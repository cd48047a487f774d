"""core25b: peak held, spilled bytes and a time proxy (rounds of the seeded drive with every
running task taking one tick: the number of waves, threads busy per wave) of the core traces
core_fingerprints moved, on the code in PYTHONPATH.

    PYTHONPATH=SRC python bench/core25b_moved.py weighted s-weighted
"""
import json
import math
import random
import sys

sys.path[:] = [p for p in sys.path if not p.endswith("bench")]

from tidegate import bridge  # noqa: E402
from tidegate.core import Finished, Run, Scheduler, Spill  # noqa: E402
from tidegate.policy import Policy  # noqa: E402
from tidegate.sim.workloads import build  # noqa: E402

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from core_fingerprints import _graph  # noqa: E402


def waves(core, size, seed):
    """Finish all running tasks together each tick (a lock-step time proxy)."""
    rng = random.Random(seed)
    running, ticks, spilled = [], 0, 0

    def take(actions):
        nonlocal spilled
        for a in actions:
            if type(a) is Run:
                running.append(a.task)
            elif type(a) is Spill:
                spilled += 1

    take(core.start())
    while running:
        ticks += 1
        batch, running[:] = list(running), []
        rng.shuffle(batch)
        for i in batch:
            take(core.handle(Finished(i, size(i))))
    return ticks, spilled


out = {}
for name in sys.argv[1:]:
    store = name.startswith("s-")
    w = build(name[2:] if store else name, 40, 190e6, store=store)
    dsk, plan, sizes = _graph(w.graph, w.keys)
    model = w.model().sizes
    for threads, budget in ((4, math.inf), (2, 1.2e9), (4, 2e9)):
        for seed in (0, 1):
            g = bridge.to_taskgraph(plan.tasks, plan.outputs, plan.supplied, "dfs", plan.dependencies, None, sizes)
            core = Scheduler(g, [(threads, budget)], Policy())
            ticks, spills = waves(core, lambda i: float(model.get(g.keys[i], 8)), seed)
            out[f"{name} {threads}x{budget:.3g} s{seed}"] = dict(
                peak_MB=round(core.workers[0].peak_held / 1e6, 1), ticks=ticks, spills=spills,
                peak_roots=core.peak_roots_held)
print(json.dumps(out))
