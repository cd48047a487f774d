"""chain24: the resample chain (probe24, issue 9) in the twin: ds.resample(time="7D").mean()
.to_zarr over a zarr store of 30-day chunks, simulated at W x T with queue and tidegate."""
import sys, tempfile
import numpy as np, xarray as xr, dask
import tidegate as td
from tidegate.sim import simulate


CHUNK = 30 * 90 * 180 * 8


def size(key):
    """Bytes: a loaded chunk, a week's slice of one (half a week on average), its mean_chunk
    (sum and count of a day), the rest a day's plane."""
    from dask.utils import key_split
    name = key_split(key)
    if name.startswith("open_dataset"):
        return CHUNK
    if name == "getitem":
        return CHUNK * 3.5 / 30
    return CHUNK * 2 / 30 if name == "mean_chunk" else CHUNK / 30


def resample_graph(path, days=731, ny=90, nx=180, chunk=30, nvars=2):
    t = np.arange(np.datetime64("2000-01-01"), np.datetime64("2000-01-01") + days)
    ds = xr.Dataset({n: (("time", "y", "x"), dask.array.zeros((days, ny, nx), chunks=(chunk, ny, nx)))
                     for n in "uv"[:nvars]}, coords={"time": t})
    ds.to_zarr(path, mode="w")
    weekly = xr.open_zarr(path).resample(time="7D").mean()
    return weekly.to_zarr(str(path) + ".out", mode="w", compute=False)


if __name__ == "__main__":
    W, T = int(sys.argv[1]) if len(sys.argv) > 1 else 2, int(sys.argv[2]) if len(sys.argv) > 2 else 1
    d = tempfile.mkdtemp()
    import os, cloudpickle
    cache = "/tmp/chain24/graph.pkl"  # one graph for every variant (the store's keys hold a uuid)
    os.makedirs(os.path.dirname(cache), exist_ok=True)
    if not os.path.exists(cache):
        x = resample_graph("/tmp/chain24/in.zarr")
        with open(cache, "wb") as f:
            cloudpickle.dump((dict(x.__dask_graph__()), x.__dask_keys__()), f)
    with open(cache, "rb") as f:
        x, keys = cloudpickle.load(f)
    for r in simulate(x, keys=keys, workers=W, threads_per_worker=T, policy=["queue", "tidegate"], sizes=size):
        print(r.policy, [round(p / 1e6, 1) for p in r.peak_memory_per_worker], round(r.makespan, 3),
              round(sum(t.nbytes for t in r.trace.transfers) / 1e6, 1))
