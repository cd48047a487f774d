"""core25b (issue 9, item 4): the thread runtime counts a task's inputs as the plugin does
(policy.second_input): an indexer computed from nothing and tiny, or a mask computed from
another input of the same task alone, is no second input. Real xarray + zarr on disk,
tidegate.get under a memory_limit; the books' landings watched as tests/test_probe25.py
watches the plugin's."""

import pytest

pytest.importorskip("xarray")
pytest.importorskip("zarr")

import dask  # noqa: E402
from _xarray_stores import store, watch_landings  # noqa: E402

import tidegate  # noqa: E402


def _landings(x, monkeypatch):
    """Compute x with tidegate.get (1 thread, 200 MB) and return (core, [(root, the task
    whose start or end landed it, tasks finished by then)]) for every loaded chunk."""
    from tidegate import core as C

    cores: list = []
    init = C.Scheduler.__init__

    def keep(self, *a, **k):
        init(self, *a, **k)
        cores.append(self)

    monkeypatch.setattr(C.Scheduler, "__init__", keep)
    landed = watch_landings(monkeypatch)
    dask.compute(x, scheduler=tidegate.get, num_workers=1, memory_limit="200MB")
    (core,) = cores
    g = core.graph
    return core, [(r, t, d) for r, t, d in landed if str(g.keys[r][0]).startswith("open_dataset")]


def _readers(core, i) -> set:
    return set(core._dependents(i))


# core25b's test_core_groupby_anomaly_chunk_does_not_land_at_its_month_split asserted the
# port's mechanism (a chunk kept in flight for its 30 day slices); that mechanism cut the
# slices ahead of their order while the chunk stayed held (core26). The groupby anomaly is
# guarded by tests/test_core26.py now.


def test_core_rolling_chunk_lands_past_its_masked_copy(tmp_path, monkeypatch):
    """``u.rolling(time=5).mean()``: a chunk is read by its mask ``~isnan(u)`` and by
    ``where(mask, u, 0)`` of (u, the mask): the mask is no second input, so u's data goes
    on in the masked copy and lands after both ran. Fails on main (25 of 25 land at the
    mask). core26: but where the copy comes after the next load in dask.order (the first
    two chunks, both loaded before either copy), the copy keeps nothing in flight
    (policy.read_on's next_load): 2 of 25 land at their mask."""
    u = store(tmp_path / "in.zarr")
    core, landed = _landings(u.rolling(time=5, center=True).mean().max("time"), monkeypatch)
    assert len(landed) == 25, len(landed)
    early = [(core.graph.keys[r], core.graph.keys[at], len(_readers(core, r) - done))
             for r, at, done in landed if not _readers(core, r) <= done]
    assert len(early) <= 2, (len(early), early)
