import sys
from tidegate import policy
from tidegate.sim import simulate
from tidegate.sim.model import build_model
from tidegate.sim.workloads import build
w = build("anomaly", 1000, 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
for cl in (1, 0):
    policy.COMBINE_LEVELS = cl
    row = []
    for d in (2, 3):
        policy.BESIDE_DEEP = d
        pols = ["queue", "tidegate"] if (cl, d) == (1, 2) else ["tidegate"]
        rs = simulate(model, workers=20, threads_per_worker=4, bandwidth="1GB/s", policy=pols,
                      record_memory=False)
        if len(rs) == 2:
            print(f"queue {rs[0].makespan:.2f} s {max(rs[0].peak_memory_per_worker)/1e9:.2f} GB", flush=True)
        t = rs[-1]
        row.append(f"BESIDE_DEEP {d}: {t.makespan:.2f} s {max(t.peak_memory_per_worker)/1e9:.2f} GB")
    print(f"COMBINE_LEVELS {cl}: " + " | ".join(row), flush=True)
