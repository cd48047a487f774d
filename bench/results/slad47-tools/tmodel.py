import sys
sys.path.insert(0, "/work/wt/slad47/tests")
import dask
from test_handle_share import DURATIONS, _slice_add
from tidegate import policy
from tidegate.sim import simulate
model = _slice_add()
for lag in (0.002, 0.01):
    for warm in ("warm", "cold"):
        for mode in (0, 3, 4, 5):
            policy.UNIT_STAGGER = mode
            rows = []
            with dask.config.set({"distributed.scheduler.default-task-durations": DURATIONS if warm == "warm" else {}}):
                for seed in range(3):
                    q, t = simulate(model, workers=8, threads_per_worker=4, bandwidth=200e6, outgoing_bandwidth=200e6, latency=0.001, thread_lag=lag, seed=seed, policy=["queue", "tidegate"], record_memory=False, processes=1)
                    rows.append((round(t.makespan / q.makespan, 3), round(max(t.peak_memory_per_worker) / max(q.peak_memory_per_worker), 3)))
            print(lag, warm, mode, rows, flush=True)
