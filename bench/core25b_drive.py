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

# One output folder for every run (emptied first): its path is in the graph's tokens, and
# dask's order breaks ties by key, so a new mkdtemp per run gave each run another order.
_fixed = os.path.join(p.FOLDER, "core25b-out")


def _out():
    import shutil

    shutil.rmtree(_fixed, ignore_errors=True)
    os.makedirs(_fixed)
    return _fixed


p._out = _out

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
CFG = os.environ.get("CORE25B_CFG", "1x2e8,1x2.85e8,1x4e8,2x2e8,2x2.85e8,2x4e8,2xinf")
for cfg in CFG.split(","):
    threads, budget = int(cfg.split("x")[0]), float(cfg.split("x")[1])
    for seed in (0, 1, 2):
        c = C.Scheduler(g, [(threads, budget)], Policy())
        if os.environ.get("CORE25B_VIEWS"):  # the body's views and buffers of the real run
            c.views[:] = ran.views
            c.buffer[:] = ran.buffer
        if os.environ.get("CORE25B_NOPULL"):  # diagnostic: no consumers brought forward
            c._pulls = False
        runs, _ = drive(c, seed=seed, size=size.__getitem__)
        out[f"{threads}x{budget:.3g} s{seed}"] = dict(
            peak_MB=round(c.workers[0].peak_held / 1e6, 1), spilled_MB=round(c.bytes_spilled / 1e6, 1),
            peak_roots=c.peak_roots_held)
print(json.dumps(out))
