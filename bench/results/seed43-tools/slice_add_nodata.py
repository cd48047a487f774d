"""The seed slice-add as bench/distributed.py builds it (zarr form) over NoData arrays, in the
twin: tidegate / queuing peak and time per seed for the switches (HINT_SHARE, HANDLE_UNOWE)
(0, 0), (1, 0), (0, 1), (1, 1), (2, 1). tests/test_handle_share.py builds the same graph.

    PYTHONPATH=src python bench/results/seed43-tools/slice_add_nodata.py 8x4 0.002
"""
import sys
import dask.array as da
from tidegate import policy
from tidegate.sim import simulate
from tidegate.sim.model import build_model
from tidegate.sim.workloads import NoData

def model():
    a = da.from_array(NoData((48, 1000, 1000)), chunks=(4, 1000, 1000), name="from-zarr-a")
    b = da.from_array(NoData((48, 1000, 1000)), chunks=(4, 1000, 1000), name="from-zarr-b")
    x = a[1:] + b[1:]
    st = da.store(x, NoData((47, 1000, 1000)), lock=True, compute=False)
    def dur(k, g=None):
        return None
    D = {"from-zarr-a-getitem": 0.012, "from-zarr-b-getitem": 0.012, "getitem": 2e-5,
         "store-map": 0.23, "original-from-zarr-a": 0.002, "original-from-zarr-b": 0.002,
         "finalize-hlgfinalizecompute": 1e-4}
    m = build_model(st, durations=D, sizes={"store-map": 16, "finalize-hlgfinalizecompute": 16}, finalize=True)
    return m

m = model()
import collections
from dask.utils import key_split
print(collections.Counter(key_split(k) for k in m.dsk), sorted(set((key_split(k), v) for k, v in m.sizes.items())))
print(sorted(set((key_split(k), round(v, 4)) for k, v in m.durations.items())))
shape = sys.argv[1]; lag = float(sys.argv[2])
w, t = map(int, shape.split("x"))
for sw in [(0, 0), (1, 0), (0, 1), (1, 1), (3, 0), (3, 1)]:
    policy.HINT_SHARE, policy.HANDLE_UNOWE = sw
    out = []
    for seed in range(3):
        q, d = simulate(m, workers=w, threads_per_worker=t, policy=["queue", "tidegate"],
                        thread_lag=lag, seed=seed, processes=1,
                        record_memory=False, bandwidth=200e6, outgoing_bandwidth=200e6, latency=0.001)
        out.append((round(max(d.peak_memory_per_worker) / max(q.peak_memory_per_worker), 3), round(d.makespan / q.makespan, 3)))
    print(sw, out)
