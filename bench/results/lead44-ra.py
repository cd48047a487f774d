import sys
from tidegate.sim import simulate
from tidegate.sim.workloads import build
from tidegate.sim.model import build_model
name = sys.argv[1]
for steps, workers in [(4, 4), (8, 4), (16, 4), (4, 2), (4, 8)]:
    w = build(name, steps, 190e6, store=True)
    model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations, finalize=True)
    q, t = simulate(model, workers=workers, threads_per_worker=4, seed=0,
                    policy=["queue", "tidegate"], record_memory=False, processes=1)
    print(name, "steps", steps, "workers", workers, "roots", len([k for k in w.graph]),
          "peak q %.0f t %.0f MB -> %.2f" % (max(q.peak_memory_per_worker) / 1e6,
          max(t.peak_memory_per_worker) / 1e6,
          max(t.peak_memory_per_worker) / max(q.peak_memory_per_worker)),
          "per worker t", [round(x / 1e6) for x in t.peak_memory_per_worker],
          "q", [round(x / 1e6) for x in q.peak_memory_per_worker],
          "time %.3f" % (t.makespan / q.makespan), flush=True)
