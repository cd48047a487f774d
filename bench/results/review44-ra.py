import sys
from tidegate import policy
from tidegate.sim import simulate
from tidegate.sim.workloads import build
name, steps, workers = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
from tidegate.sim.model import build_model
w = build(name, steps, 190e6, store=True)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations, finalize=True)
for us in (0, 1):
    policy.UNIT_STAGGER = us
    for seed in range(2):
        q, t = simulate(model, workers=workers, threads_per_worker=4, seed=seed,
                        policy=["queue", "tidegate"], record_memory=False, processes=1)
        print(name, workers, "US", us, "seed", seed,
              "peak %.3f" % (max(t.peak_memory_per_worker) / max(q.peak_memory_per_worker)),
              "time %.3f" % (t.makespan / q.makespan),
              "moved %.3f GB (q %.3f)" % (t.bytes_transferred / 1e9, q.bytes_transferred / 1e9),
              flush=True)
