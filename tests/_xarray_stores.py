"""Shared by the xarray + zarr tests (test_probe25, test_core25b, test_core26, test_halo26):
the two-year daily store, its chunks named by a token, measured task sizes, and the books'
landings watched. Imports no distributed, so the core's tests need only xarray and zarr
(each test file importorskips them before importing this)."""

import numpy as np
import xarray as xr
from dask.callbacks import Callback
from dask.sizeof import sizeof

DAYS = np.arange(np.datetime64("2000-01-01"), np.datetime64("2002-01-01"))  # 731


def write_store(path, ny=45, nx=90):
    """``u`` (time, y, x), standard normal (seed 0), chunked by 30 days, as zarr at path."""
    u = np.random.default_rng(0).standard_normal((len(DAYS), ny, nx))
    xr.Dataset({"u": (("time", "y", "x"), u)}, coords={"time": DAYS}).chunk(
        {"time": 30}).to_zarr(path)


def store(path, ny=45, nx=90):
    """The store written at path and opened: its ``u``."""
    write_store(path, ny, nx)
    return xr.open_zarr(path).u


def named(path, token):
    """The store's ``u`` with its chunks named by ``token`` (the loaders open_zarr makes)."""
    return xr.open_zarr(path, chunks=None).u.chunk(
        {"time": 30}, name_prefix="open_dataset-", token=token)


def measured(x):
    """x's graph as compute sends it (finalized), as a twin Model whose sizes are each
    task's sizeof(result) on one dask.local run: the sizes follow no key name, so tests
    judge renamings of it (tests/_namings.renamed) rather than measure each naming."""
    import dask

    from tidegate.sim.model import build_model, graph_of

    dsk, out, _, _ = graph_of(x, finalize=True)
    with Sizes() as s:
        dask.local.get_sync(dsk, out)
    return build_model(dsk, out, sizes=lambda k, size=s.size: size.get(k, 0))


class Sizes(Callback):
    """Each task's sizeof(result), by key, of a dask.local run inside ``with``."""

    def __init__(self):
        super().__init__()
        self.size = {}

    def _posttask(self, key, result, dsk, state, worker_id):
        self.size[key] = sizeof(result)


def watch_landings(monkeypatch) -> list:
    """A list that fills, while books.Books runs, with (root, the task whose start or end
    landed it, the tasks finished by then) for every root landing."""
    from tidegate import books as B

    finished: list = []
    landed: list = []

    def wrap(method, ends):
        def run(self, task, *a, **k):
            n = len(self.log)
            method(self, task, *a, **k)
            if ends:
                finished.append(task)
            for e in list(self.log)[n:]:
                if e[1] == "landed":
                    landed.append((e[0], task, set(finished)))
        return run

    monkeypatch.setattr(B.Books, "on_finished", wrap(B.Books.on_finished, True))
    monkeypatch.setattr(B.Books, "on_consuming", wrap(B.Books.on_consuming, False))
    return landed
