"""vfiles20: one vorticity-files step's parts run serially on the calling thread (no dask), CPU
seconds each (process_time: zarr's own threads included) and wall, per step, medians over the
steps. Tells what one-at-a-time costs: the heavy task (vorticity + store) against the reads.

    PYTHONPATH=src python bench/results/vfiles20_serial.py /tmp/vfiles20-in [STEPS]
"""
import statistics, sys, time, os, tempfile
import numpy as np, zarr
from tidegate import workloads as W

folder = sys.argv[1]
steps = int(sys.argv[2]) if len(sys.argv) > 2 else 25
a = zarr.open_array(f"{folder}/a.zarr", mode="r"); b = zarr.open_array(f"{folder}/b.zarr", mode="r")
out = zarr.create_array(tempfile.mkdtemp(prefix="vfiles20-ser-") + "/o.zarr", shape=a.shape,
                        chunks=(W.STEPS_PER_CHUNK, W.SIDE, W.SIDE), dtype="f8", overwrite=True)
grid = [W._grid_metric(W._grid_field(k)) for k in range(3)]
rec = {"read": [], "vorticity": [], "store": []}
def timed(name, f, *x):
    c, t = time.process_time(), time.perf_counter()
    r = f(*x)
    rec[name].append((time.process_time() - c, time.perf_counter() - t))
    return r
for t in range(steps):
    u = timed("read", W._read_step, a, t); v = timed("read", W._read_step, b, t)
    w = timed("vorticity", W._vorticity_step, u, v, *grid)
    timed("store", out.__setitem__, slice(t * 4, t * 4 + 4), w)
    del u, v, w
for k, v in rec.items():
    print(f"{k:10s} n {len(v):3d} cpu median {statistics.median(c for c, _ in v) * 1e3:6.1f} ms "
          f"(sum {sum(c for c, _ in v):.2f} s), wall median {statistics.median(w for _, w in v) * 1e3:6.1f} ms"
          f" (sum {sum(w for _, w in v):.2f} s)")
print("load", os.getloadavg())
