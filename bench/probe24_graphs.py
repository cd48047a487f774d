"""probe24's two target pipelines (bench/probe24_cluster.py's clim-anom-store and rolling-max,
real xarray + zarr on disk) built for the thread runtime's benches (core25b_real.py,
core26_drive.py), and the core that tidegate.get makes of one. Import it with bench/ at the
end of sys.path (after the installed packages: bench/distributed.py is no ``distributed``)."""
import os
import random
import shutil
import uuid

import probe24_cluster as p

PIPELINES = {"clim-anom-store": p.clim_anom_store, "rolling-max": p.rolling_max,
             "resample-store": p.resample_store}  # (one28: resample in the thread runtime)


def build(name, out, seed=None):
    """Pipeline ``name``, storing under ``p.FOLDER/out`` (emptied first). One fixed folder per
    bench, not a new mkdtemp per run: its path is in the graph's tokens and dask.order breaks
    ties by key, so each mkdtemp gave another order. ``seed``: uuid4 seeded (core26), so the
    keys' random token (which moves dask.order's ties) is the same for every src given the same
    seed: base and new A/B on the same graph."""
    folder = os.path.join(p.FOLDER, out)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    p._out = lambda: folder
    if seed is not None:
        rng = random.Random(seed)
        uuid.uuid4 = lambda: uuid.UUID(int=rng.getrandbits(128), version=4)
    return PIPELINES[name]()


def unbudgeted_core(x):
    """The core (tidegate.core.Scheduler) of one tidegate.get run of ``x``, one thread, no
    memory_limit: its graph, measured sizes (``nbytes``), views and buffers."""
    import dask

    import tidegate
    from tidegate import core as C

    cores = []
    init = C.Scheduler.__init__

    def keep(self, *a, **kw):
        init(self, *a, **kw)
        cores.append(self)

    C.Scheduler.__init__ = keep
    try:
        dask.compute(x, scheduler=tidegate.get, num_workers=1, memory_limit="none")
    finally:
        C.Scheduler.__init__ = init
    (ran,) = cores
    return ran
