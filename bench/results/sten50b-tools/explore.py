import sys; sys.path.insert(0, "/work/wt/sten50b/tests")
import dask.array as da
from _namings import renamed
from tidegate import policy
from tidegate.sim import simulate
from tidegate.sim.model import build_model
from test_stencil import MEASURED, REDUCED, _double
a = da.random.RandomState(2).random((6000, 6000), chunks=1000)
x = a.map_overlap(_double, depth=1, boundary="none", name="stencil-a").std(axis=0)
model = build_model(x, sizes=REDUCED, durations=MEASURED, finalize=True)
shapes = sys.argv[1].split(",")
for shape in shapes:
    w, t = map(int, shape.split("x"))
    for salt in (None, 1, 2, 3, 4):
        for seed in (0, 1):
            m = renamed(model, salt); row = []
            for deep, alone in ((2, 2), (3, 2), (3, 3)):
                policy.BESIDE_DEEP, policy.BESIDE_DEEP_ALONE = deep, alone
                q, tg = simulate(m, workers=w, threads_per_worker=t, bandwidth=200e6,
                                 outgoing_bandwidth=200e6, latency=0.001, thread_lag=0.01,
                                 seed=seed, policy=["queue", "tidegate"], record_memory=False,
                                 processes=1)
                row.append(f"{deep}/{alone}: {tg.makespan/q.makespan:.3f} {max(tg.peak_memory_per_worker)/1e6:.1f}")
            print(shape, salt, seed, f"q {max(q.peak_memory_per_worker)/1e6:.1f}", " | ".join(row), flush=True)
