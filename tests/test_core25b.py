"""core25b (issue 9, item 4): the thread runtime counts a task's inputs as the plugin does
(policy.second_input): an indexer computed from nothing and tiny, or a mask computed from
another input of the same task alone, is no second input. Real xarray + zarr on disk,
tidegate.get under a memory_limit; the books' landings watched as tests/test_probe25.py
watches the plugin's."""

import numpy as np
import pytest

xr = pytest.importorskip("xarray")
pytest.importorskip("zarr")

import dask  # noqa: E402

import tidegate  # noqa: E402

DAYS = np.arange(np.datetime64("2000-01-01"), np.datetime64("2002-01-01"))  # 731


def _store(path, ny=45, nx=90):
    rng = np.random.default_rng(0)
    u = rng.standard_normal((len(DAYS), ny, nx))
    xr.Dataset({"u": (("time", "y", "x"), u)}, coords={"time": DAYS}).chunk(
        {"time": 30}).to_zarr(path)
    return xr.open_zarr(path).u


def _landings(x, monkeypatch):
    """Compute x with tidegate.get (1 thread, 200 MB) and return (core, [(root, the task
    whose start or end landed it, tasks finished by then)]) for every loaded chunk."""
    from tidegate import books as B
    from tidegate import core as C

    cores: list = []
    finished: list = []
    landed: list = []
    init = C.Scheduler.__init__

    def keep(self, *a, **k):
        init(self, *a, **k)
        cores.append(self)

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

    monkeypatch.setattr(C.Scheduler, "__init__", keep)
    monkeypatch.setattr(B.Books, "on_finished", wrap(B.Books.on_finished, True))
    monkeypatch.setattr(B.Books, "on_consuming", wrap(B.Books.on_consuming, False))
    dask.compute(x, scheduler=tidegate.get, num_workers=1, memory_limit="200MB")
    (core,) = cores
    g = core.graph
    return core, [(r, t, d) for r, t, d in landed if str(g.keys[r][0]).startswith("open_dataset")]


def _readers(core, i) -> set:
    return set(core._dependents(i))


def test_core_groupby_anomaly_chunk_does_not_land_at_its_month_split(tmp_path, monkeypatch):
    """``u.groupby("time.month") - clim`` to zarr: a chunk is read by day slices and by
    shuffle-splits of (chunk, a ~280-byte indexer computed from nothing). Counted as a
    second input, the indexer made the split consume the chunk while day slices still
    read it (the plugin's probe25 finding, the same in the core). Fails on main."""
    u = _store(tmp_path / "in.zarr")
    anom = (u.groupby("time.month") - u.groupby("time.month").mean()).rename("anom")
    core, landed = _landings(anom.to_dataset().to_zarr(tmp_path / "out.zarr", compute=False),
                             monkeypatch)
    g = core.graph
    assert len(landed) == 25, len(landed)  # every chunk, once
    at_split = [g.keys[at] for _, at, _ in landed if "shuffle-split" in str(g.keys[at])]
    assert len(at_split) <= 2, at_split


def test_core_rolling_chunk_lands_past_its_masked_copy(tmp_path, monkeypatch):
    """``u.rolling(time=5).mean()``: a chunk is read by its mask ``~isnan(u)`` and by
    ``where(mask, u, 0)`` of (u, the mask): the mask is no second input, so u's data goes
    on in the masked copy and lands after both ran. Fails on main."""
    u = _store(tmp_path / "in.zarr")
    core, landed = _landings(u.rolling(time=5, center=True).mean().max("time"), monkeypatch)
    assert len(landed) == 25, len(landed)
    early = [(core.graph.keys[r], core.graph.keys[at], len(_readers(core, r) - done))
             for r, at, done in landed if not _readers(core, r) <= done]
    assert not early, early
