import sys, time
sys.path.insert(0, "/work/wt/tail36/tests")
import tidegate.policy as P
from test_small_cluster_twin import _wall24_rechunk, NET, simulate
model = _wall24_rechunk()
net = dict(NET, outgoing_bandwidth=200e6)
for v in (0, 1):
    P.PAIR_LOADS = v
    for w in (3, 2, 4):
        t_make = q_make = t_peak = q_peak = 0; over = 0; per = []
        for seed in range(5):
            q, t = simulate(model, workers=w, threads_per_worker=3,
                            policy=["queue", "tidegate"], thread_lag=0.002, seed=seed,
                            processes=1, record_memory=False, **net)
            t_make, q_make = t_make + t.makespan, q_make + q.makespan
            tp, qp = max(t.peak_memory_per_worker), max(q.peak_memory_per_worker)
            t_peak += tp; q_peak += qp; over += tp > 1.05 * qp; per.append(round(tp / qp, 3))
        print(v, w, "peak", round(t_peak / q_peak, 3), "make", round(t_make / q_make, 3), "over", over, per, flush=True)
