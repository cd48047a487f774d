"""tests/test_spread_region.py's twin model (4 x 8 at 10 ms, REDUCED sizes, MEASURED
durations), run by run: SPREAD_REGION 0 and 1 against queue."""
import dask.array as da
from _namings import renamed
from tidegate import policy
from tidegate.sim import simulate
from tidegate.sim.model import build_model
from test_stencil import MEASURED, REDUCED, ROW, _double
a = da.random.RandomState(2).random((6000, 6000), chunks=1000)
x = a.map_overlap(_double, depth=1, boundary="none", name="stencil-a").std(axis=0)
model = build_model(x, sizes=REDUCED, durations=MEASURED, finalize=True)
for salt in (None, 1, 2):
    for seed in (0, 1):
        row = []
        for switch in (0, 1):
            policy.SPREAD_REGION = switch
            q, t = simulate(renamed(model, salt), workers=4, threads_per_worker=8,
                            bandwidth=200e6, outgoing_bandwidth=200e6, latency=0.001,
                            thread_lag=0.01, seed=seed, policy=["queue", "tidegate"],
                            record_memory=False, processes=1)
            row.append((round(t.makespan, 4), max(t.peak_memory_per_worker) // 1e6,
                        round(q.makespan, 4), max(q.peak_memory_per_worker) // 1e6))
        print(salt, seed, row, flush=True)
