"""core25b: the core alone on the real graphs of probe24's two target pipelines (xarray +
zarr, as tidegate.get ingests them), driven without threads (tidegate.testing.drive,
seeded finishing order) with each task's measured size (dask.sizeof of a real tidegate.get
run of the same code): peak held bytes per (threads, budget, seed); deterministic.

    PYTHONPATH=SRC python bench/core25b_drive.py NAME
"""
import json
import math
import os
import sys

sys.path[:] = [p for p in sys.path if not p.endswith("bench")]
import dask  # noqa: E402

import tidegate  # noqa: E402
from tidegate import core as C  # noqa: E402
from tidegate.policy import Policy  # noqa: E402
from tidegate.testing import drive  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import probe24_cluster as p  # noqa: E402

name = sys.argv[1]
x = {"clim-anom-store": p.clim_anom_store, "rolling-max": p.rolling_max}[name]()
cores = []
init = C.Scheduler.__init__


def keep(self, *a, **k):
    init(self, *a, **k)
    cores.append(self)


C.Scheduler.__init__ = keep
dask.compute(x, scheduler=tidegate.get, num_workers=1, memory_limit="none")
C.Scheduler.__init__ = init
(ran,) = cores
g = ran.graph
size = list(ran.nbytes)
out = {}
for threads, budget in ((1, 2e8), (1, 4e8), (2, 2e8), (2, 4e8), (2, math.inf)):
    for seed in (0, 1, 2):
        c = C.Scheduler(g, [(threads, budget)], Policy())
        runs, _ = drive(c, seed=seed, size=size.__getitem__)
        out[f"{threads}x{budget:.3g} s{seed}"] = dict(
            peak_MB=round(c.workers[0].peak_held / 1e6, 1), spilled_MB=round(c.bytes_spilled / 1e6, 1),
            peak_roots=c.peak_roots_held)
print(json.dumps(out))
