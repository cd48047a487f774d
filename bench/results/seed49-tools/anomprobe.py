"""Anomaly (tidegate.sim.workloads, store form, 190 MB chunks as small46's tr.py) at a few
steps and shapes: queue, tidegate as it is, and tidegate with treeprobe.py (a tree
reduction's group capped at the wave's share, refused roots split). tidegate / queue time and
busiest-worker peak, seeds 0-2.

    python anomprobe.py [--steps 6,8,12] [--shapes 2x2,2x4,4x4] [--mode 6]
"""
import argparse
import os
import statistics

from tidegate import policy
from tidegate.sim import simulate
from tidegate.sim.workloads import build

ap = argparse.ArgumentParser()
ap.add_argument("--steps", default="6,8,12")
ap.add_argument("--shapes", default="2x2,2x4,4x4")
ap.add_argument("--seeds", type=int, default=3)
ap.add_argument("--chunk", type=float, default=190e6)
ap.add_argument("--name", default="anomaly")
a = ap.parse_args()
ns: dict = {}
exec(open(os.path.join(os.path.dirname(__file__), "treeprobe.py")).read(), ns)
for steps in map(int, a.steps.split(",")):
    model = build(a.name, steps, a.chunk, store=True).model()
    for shape in a.shapes.split(","):
        w, t = map(int, shape.split("x"))
        rows = {"base": [], "probe": []}
        for seed in range(a.seeds):
            q, = simulate(model, workers=w, threads_per_worker=t, seed=seed, policy=["queue"],
                          record_memory=False, processes=1)
            for side in rows:
                ns["TREE_PROBE"] = side == "probe"
                _save = policy.UNIT_STAGGER
                policy.UNIT_STAGGER = 6 if side == "probe" else _save
                try:
                    d, = simulate(model, workers=w, threads_per_worker=t, seed=seed,
                                  policy=["tidegate"], record_memory=False, processes=1)
                finally:
                    policy.UNIT_STAGGER = _save
                rows[side].append((d.makespan / q.makespan, max(d.peak_memory_per_worker)
                                   / max(q.peak_memory_per_worker)))
        print(f"{a.name} {steps} {shape}: " + "  ".join(
            f"{s} time {statistics.median(r[0] for r in v):.3f} [max {max(r[0] for r in v):.3f}]"
            f" peak {statistics.median(r[1] for r in v):.3f} [max {max(r[1] for r in v):.3f}]"
            for s, v in rows.items()), flush=True)
