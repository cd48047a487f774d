import os, sys, collections
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../tests"))
exec(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "instrument.py")).read())
from test_small_cluster_twin import _anomaly_stores, NET
from tidegate.sim import simulate
for shape in ((2, 1), (2, 2), (4, 1), (4, 2)):
    for n in ("", "-n1", "-n2", "-n3"):
        for lag in (0.002, 0.01):
            for seed in range(2):
                before = dict(_stats)
                dsk, final, durations, sizes = _anomaly_stores(n)
                simulate(dsk, keys=[final], workers=shape[0], threads_per_worker=shape[1],
                         policy="tidegate", durations=lambda k: durations.get(k, 0.0),
                         sizes=lambda k: sizes.get(k, 16), thread_lag=lag, seed=seed,
                         processes=1, record_memory=False, **NET)
                d = {k: v - before.get(k, 0) for k, v in _stats.items() if v - before.get(k, 0) and k != "decide"}
                if d:
                    print(shape, repr(n), lag, seed, d, flush=True)
