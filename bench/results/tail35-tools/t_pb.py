import sys
sys.path.insert(0, "/work/wt/tail35/tests")
import tidegate.policy as P
from tidegate.sim import simulate
from test_small_cluster_twin import _rechunk_std, NET
net = dict(NET, outgoing_bandwidth=200e6)
for shape in [(4, 4), (2, 4), (3, 4)]:
    for lag in (0.002, 0.01):
        for seed in (0, 1, 2):
            out = {}
            for v in (0, 1):
                P.PAIR_BUSY = v
                tm = qm = tp = qp = 0; runs = []
                for n in ("", "-n1", "-n2", "-n3"):
                    dsk, final, durations, sizes = _rechunk_std(n, var=True)
                    q, t = simulate(dsk, keys=[final], workers=shape[0], threads_per_worker=shape[1],
                                    policy=["queue", "tidegate"], durations=lambda k: durations.get(k, 0.0),
                                    sizes=lambda k: sizes.get(k, 16), thread_lag=lag, seed=seed,
                                    processes=1, record_memory=False, **net)
                    tm += t.makespan; qm += q.makespan
                    tp += max(t.peak_memory_per_worker); qp += max(q.peak_memory_per_worker)
                    runs.append(round(max(t.peak_memory_per_worker) / max(q.peak_memory_per_worker), 3))
                out[v] = (round(tp / qp, 3), round(tm / qm, 3), runs)
            print(shape, lag, seed, "off", out[0], "on", out[1], flush=True)
