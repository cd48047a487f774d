"""Anomaly with a.mean(axis=0, split_every=K) (groups not of 4): tidegate with a switch
off/on against queue, per steps x shape x seed. Usage: split_cells.py K STEPS SHAPES SEEDS NAME OLD NEW"""
import sys, statistics
from tidegate import policy
from tidegate.sim import simulate
from tidegate.sim import workloads
k = int(sys.argv[1]); steps_l = sys.argv[2].split(","); shapes = sys.argv[3].split(",")
seeds = int(sys.argv[4]); name, old, new = sys.argv[5], eval(sys.argv[6]), eval(sys.argv[7])
workloads.WORKLOADS["anomaly"] = lambda a, b, grid, side: a - a.mean(axis=0, split_every=k)
for steps in map(int, steps_l):
    m = workloads.build("anomaly", steps, 190e6, store=True).model()
    for shape in shapes:
        w, t = map(int, shape.split("x"))
        rows = {"old": [], "new": []}
        for seed in range(seeds):
            q, = simulate(m, workers=w, threads_per_worker=t, seed=seed, policy=["queue"],
                          record_memory=False, processes=1)
            for side, v in (("old", old), ("new", new)):
                saved = getattr(policy, name); setattr(policy, name, v)
                try:
                    d, = simulate(m, workers=w, threads_per_worker=t, seed=seed,
                                  policy=["tidegate"], record_memory=False, processes=1)
                finally:
                    setattr(policy, name, saved)
                rows[side].append((d.makespan / q.makespan,
                                   max(d.peak_memory_per_worker) / max(q.peak_memory_per_worker)))
        same = rows["old"] == rows["new"]
        def f(r):
            ts = [x[0] for x in r]; ps = [x[1] for x in r]
            return "time %.3f [%.3f] peak %.3f [%.3f]" % (statistics.median(ts), max(ts),
                                                         statistics.median(ps), max(ps))
        print(f"split_every={k} {steps} {shape} {'SAME' if same else 'moved'}: old {f(rows['old'])} | new {f(rows['new'])}", flush=True)
