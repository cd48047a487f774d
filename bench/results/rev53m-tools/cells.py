"""Run tidegate (and queue) on given anomaly cells; print makespan/peak/bytes raw."""
import sys, json
from tidegate import policy
from tidegate.sim import simulate
from tidegate.sim.workloads import build
sets = [a.split("=") for a in sys.argv[2:]]
for k, v in sets:
    setattr(policy, k, eval(v))
name = "anomaly"
for cell in sys.argv[1].split(","):
    steps, shape, seed = cell.split(":")
    w, t = map(int, shape.split("x"))
    m = build(name, int(steps), 190e6, store=True).model()
    q, d = simulate(m, workers=w, threads_per_worker=t, seed=int(seed), policy=["queue", "tidegate"],
                    record_memory=False, processes=1)
    print(cell, "time %.3f peak %.3f" % (d.makespan / q.makespan,
          max(d.peak_memory_per_worker) / max(q.peak_memory_per_worker)), flush=True)
