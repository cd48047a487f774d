"""rech37: the new twin test's sums per PAIR_LOADS value (peaks per seed, makespan sums)."""
import sys
sys.path.insert(0, "tests")
import tidegate.policy as policy
import test_small_cluster_twin as T
from tidegate.sim import simulate
model = T._wall24_rechunk()
net = dict(T.NET, outgoing_bandwidth=200e6)
for v in map(int, sys.argv[1:] or ["1", "3"]):
    policy.PAIR_LOADS = v
    for w in (2, 3):
        tm = qm = 0
        rows = []
        for seed in range(5):
            q, t = simulate(model, workers=w, threads_per_worker=4, policy=["queue", "tidegate"],
                            thread_lag=0.002, seed=seed, processes=1, record_memory=False, **net)
            tm, qm = tm + t.makespan, qm + q.makespan
            rows.append(f"{max(t.peak_memory_per_worker) / max(q.peak_memory_per_worker):.3f}")
        print(f"PAIR_LOADS {v} {w}x4 peak ratios {rows} makespan sum {tm / qm:.3f}x queuing's")
