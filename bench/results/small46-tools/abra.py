# base vs new on the twin's build("rechunk-add"/...) workloads, one process: switch values per side
# ra45: base vs new (switch values) on the twin build() workloads in one process: python abra.py --name rechunk-add --steps 4,8 --shapes 2x4,4x4 --old A=0,B=0 --new A=7,B=1
import sys, statistics, itertools
from tidegate import policy
from tidegate.sim import simulate
from tidegate.sim.workloads import build
from tidegate.sim.model import build_model
import argparse
ap = argparse.ArgumentParser()
ap.add_argument("--name", default="rechunk-add")
ap.add_argument("--steps", default="4,8,16,24")
ap.add_argument("--chunk", type=float, default=190e6)
ap.add_argument("--shapes", default="2x4,4x4,8x4")
ap.add_argument("--seeds", type=int, default=3)
ap.add_argument("--store", type=int, default=1)
ap.add_argument("--old", default="CONSTANT_HANDLES=0,PAIR_SPREAD=0")
ap.add_argument("--new", default="CONSTANT_HANDLES=1,PAIR_SPREAD=1")
ap.add_argument("--lag", type=float, default=None)
a = ap.parse_args()
def sets(s):
    return {k: eval(v) for k, v in (x.split("=") for x in s.split(","))}
old, new = sets(a.old), sets(a.new)
for steps in map(int, a.steps.split(",")):
    w = build(a.name, steps, a.chunk, store=bool(a.store))
    model = w.model() if a.store else build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
    for shape in a.shapes.split(","):
        W, T = map(int, shape.split("x"))
        rows = []
        for seed in range(a.seeds):
            kw = dict(workers=W, threads_per_worker=T, seed=seed, record_memory=False, processes=1)
            if a.lag is not None:
                kw["thread_lag"] = a.lag
            q, = simulate(model, policy=["queue"], **kw)
            r = []
            for side in (old, new):
                for k, v in side.items(): setattr(policy, k, v)
                t, = simulate(model, policy=["tidegate"], **kw)
                r.append((t.makespan / q.makespan, max(t.peak_memory_per_worker) / max(q.peak_memory_per_worker), t.bytes_transferred / 1e6, q.bytes_transferred / 1e6))
            rows.append(r)
        def med(i, j): return statistics.median(x[i][j] for x in rows)
        def mx(i, j): return max(x[i][j] for x in rows)
        print(f"{a.name} steps {steps} {shape} n={len(rows)} old time {med(0,0):.3f} (max {mx(0,0):.3f}) peak {med(0,1):.2f} (max {mx(0,1):.2f}) moved {med(0,2):.0f}MB | "
              f"new time {med(1,0):.3f} (max {mx(1,0):.3f}) peak {med(1,1):.2f} (max {mx(1,1):.2f}) moved {med(1,2):.0f}MB | queue moved {med(0,3):.0f}MB", flush=True)
