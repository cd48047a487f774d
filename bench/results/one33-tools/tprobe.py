import sys
sys.path.insert(0, "/work/wt/one33/tests")
from test_small_cluster_twin import _stores_of_two_grids, NET
from tidegate.sim import simulate
import tidegate.policy as P
net = dict(NET, outgoing_bandwidth=200e6)
for v in (0, 1):
    P.TARGETS_NO_ROOT = v
    for lag in (0.002, 0.01):
        tp_s = qp_s = tm = qm = 0; over = 0; rows = []
        for n in ("", "-n1", "-n2", "-n3", "-n4"):
            dsk, durations, sizes = _stores_of_two_grids(n)
            for seed in range(5):
                q, t = simulate(dsk, keys=[f"total{n}"], workers=2, threads_per_worker=1,
                                policy=["queue", "tidegate"], durations=lambda k: durations.get(k, 0.0),
                                sizes=lambda k: sizes.get(k, 16), thread_lag=lag, seed=seed,
                                processes=1, record_memory=False, **net)
                tp, qp = max(t.peak_memory_per_worker), max(q.peak_memory_per_worker)
                over += tp > qp + 1000
                tp_s += tp; qp_s += qp; tm += t.makespan; qm += q.makespan
                rows.append(round(tp/1e6))
        print(v, lag, "over", over, "peaks", tp_s/1e6, qp_s/1e6, "time", round(tm/qm, 3), rows, flush=True)
