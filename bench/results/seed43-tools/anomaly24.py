"""The twin fingerprints' anomaly (tidegate.sim.workloads, 24 steps of 50 MB, as returned
and in the store form) on 20 x 4 and smaller: queuing's and tidegate's makespan and peak
per HINT_SHARE value, over twin seeds.

    PYTHONPATH=src python bench/results/seed43-tools/anomaly24.py 20x4 [lag]
"""
import sys

from tidegate import policy
from tidegate.sim import simulate
from tidegate.sim.workloads import build

shape = sys.argv[1]
lag = float(sys.argv[2]) if len(sys.argv) > 2 else None
w, t = map(int, shape.split("x"))
for store in (False, True):
    model = build("anomaly", steps=24, chunk_bytes=50e6, store=store).model()
    for seed in range(3):
        kw = dict(workers=w, threads_per_worker=t, seed=seed, record_memory=False)
        if lag is not None:
            kw["thread_lag"] = lag
        q = simulate(model, policy="queue", **kw)
        line = [f"store={store} s{seed} queue {q.makespan:.3f} "
                f"{max(q.peak_memory_per_worker) / 1e6:.0f}"]
        for v in (1, 3):
            policy.HINT_SHARE = v
            r = simulate(model, policy="tidegate", **kw)
            line.append(f"H{v} {r.makespan / q.makespan:.3f} "
                        f"{max(r.peak_memory_per_worker) / max(q.peak_memory_per_worker):.3f}")
        print(" | ".join(line), flush=True)
