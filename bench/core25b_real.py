"""core25b: the thread runtime (tidegate.get) on probe24's two target pipelines, real
xarray + zarr on disk (/tmp/probe24-inputs, bench/probe24_cluster.py makes them): the
groupby("time.month") anomaly stored to zarr, and rolling(time=5).mean().max("time").
One run per process (fresh RSS); prints JSON: RunStats peak_held_bytes / peak_memory
(RSS above start, the runtime's own sampling) / wall, and a 5 ms RSS sampler's peak.

    PYTHONPATH=SRC python bench/core25b_real.py NAME THREADS MEMORY_LIMIT [SEED]

MEMORY_LIMIT ``threaded`` (one28): dask's threaded scheduler instead (RSS and wall only).

SEED (core26): uuid4 seeded, so the graph's keys (their random token, which moves dask.order's
ties) are the same for every src given the same seed: base and new A/B on the same graph.
"""
import json
import os
import sys
import threading
import time

sys.path[:] = [p for p in sys.path if not p.endswith("bench")]
import dask  # noqa: E402
import psutil  # noqa: E402

import tidegate  # noqa: E402

sys.path.append(os.path.dirname(os.path.abspath(__file__)))
from probe24_graphs import build  # noqa: E402

name, threads, limit = sys.argv[1], int(sys.argv[2]), sys.argv[3]
seed = int(sys.argv[4]) if len(sys.argv) > 4 else None
x = build(name, "core25b-out", seed)
proc = psutil.Process()
base = proc.memory_info().rss
peak = [base]
stop = threading.Event()


def sample():
    while not stop.wait(0.005):
        r = proc.memory_info().rss
        if r > peak[0]:
            peak[0] = r


t = threading.Thread(target=sample, daemon=True)
t.start()
s = tidegate.RunStats()
t0 = time.perf_counter()
if limit == "threaded":  # (one28: dask's threaded scheduler, the reference)
    dask.compute(x, scheduler="threads", num_workers=threads)
else:
    dask.compute(x, scheduler=tidegate.get, num_workers=threads, memory_limit=limit, stats=s)
wall = time.perf_counter() - t0
stop.set()
t.join()
print(json.dumps(dict(name=name, threads=threads, limit=limit, src=tidegate.__file__,
                      peak_held_MB=round(s.peak_held_bytes / 1e6, 1),
                      peak_memory_MB=round(s.peak_memory / 1e6, 1),
                      rss_peak_above_start_MB=round((peak[0] - base) / 1e6, 1),
                      wall_s=round(wall, 2), seed=sys.argv[4] if len(sys.argv) > 4 else None,
                      peak_roots=s.peak_roots_held, tasks=s.tasks,
                      spilled_MB=round(s.bytes_spilled / 1e6, 1), core_s=round(s.core_time, 3),
                      budget_MB=round(s.lowest_budget / 1e6, 1),
                      dropped_MB=round(s.bytes_dropped / 1e6, 1), recomputed=s.tasks_recomputed,
                      gate_refusals=s.gate_refusals, fewest_threads=s.fewest_threads)))
