import sys
import dask
WARM = '--warm' in sys.argv
sys.path.insert(0, "/work/wt/fg48/tests")
from test_handle_share import _slice_add
from tidegate import policy
from tidegate.sim import simulate
model = _slice_add()
from test_handle_share import DURATIONS
ctx = dask.config.set({'distributed.scheduler.default-task-durations': DURATIONS if WARM else {}})
ctx.__enter__()
for W in (2, 4, 8):
    for lag in (0.002, 0.01):
        row = []
        for mode in (0, 1, 2):
            policy.FURTHER_GATHER = mode
            res = []
            for seed in range(3):
                q, t = simulate(model, workers=W, threads_per_worker=4, bandwidth=200e6, outgoing_bandwidth=200e6, latency=0.001, thread_lag=lag, seed=seed, policy=["queue", "tidegate"], record_memory=False, processes=1)
                loads = {}
                for task in t.trace.tasks:
                    if str(task.key).startswith("('from-zarr-a-getitem"):
                        loads[task.worker] = loads.get(task.worker, 0) + 1
                res.append((round(t.makespan / q.makespan, 3), round(max(t.peak_memory_per_worker) / max(q.peak_memory_per_worker), 3), tuple(sorted(loads.values()))))
            row.append(res)
        print(W, lag, *row, sep="\n  ")
