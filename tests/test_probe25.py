"""probe25 (issue 9): inputs of a task that carry no data beside the chunk it cuts or
masks (policy.second_input), seen in xarray's groupby anomaly and rolling mean over zarr."""

import numpy as np
import pytest

xr = pytest.importorskip("xarray")
pytest.importorskip("zarr")
pytest.importorskip("distributed")

import dask  # noqa: E402
import dask.array as da  # noqa: E402
from dask.callbacks import Callback  # noqa: E402
from dask.sizeof import sizeof  # noqa: E402

DAYS = np.arange(np.datetime64("2000-01-01"), np.datetime64("2002-01-01"))  # 731


def _store(path, ny=45, nx=90):
    rng = np.random.default_rng(0)
    u = rng.standard_normal((len(DAYS), ny, nx))
    xr.Dataset({"u": (("time", "y", "x"), u)}, coords={"time": DAYS}).chunk(
        {"time": 30}).to_zarr(path)
    return xr.open_zarr(path).u


class _Sizes(Callback):
    def __init__(self):
        super().__init__()
        self.size = {}

    def _posttask(self, key, result, dsk, state, worker_id):
        self.size[key] = sizeof(result)


def _twin(x):
    """queue and tidegate on the twin at 2 x 1, each task's size measured (dask.sizeof of
    its result on the synchronous scheduler), durations the twin's default model."""
    from tidegate.sim import simulate
    from tidegate.sim.model import graph_of

    dsk, out, _, _ = graph_of(x, finalize=True)
    with _Sizes() as s:
        dask.local.get_sync(dsk, out)
    return simulate(dsk, keys=out, workers=2, threads_per_worker=1,
                    policy=["queue", "tidegate"], sizes=lambda k: s.size.get(k, 0))


def test_twin_rolling_mean_counts_the_masked_copy_of_a_chunk(tmp_path):
    """``u.rolling(time=5, center=True).mean().max("time")``: xarray masks each chunk,
    ``where(~isnan(u), u, 0)``, a task of (u, invert(u)); counted as two inputs, u landed
    at invert (a reduction whose only other reader had two inputs) and the 15.6 MB masked
    copy and its merge were in flight nowhere (probe24 LocalCluster 2 x 1: 1.07x queuing's
    RSS; twin of that run 183.8 MB against 120.7). Fails on main."""
    u = _store(tmp_path / "in.zarr")
    x = u.rolling(time=5, center=True).mean().max("time")
    queue, tide = _twin(x)
    assert max(tide.peak_memory_per_worker) <= 1.05 * max(queue.peak_memory_per_worker), (
        tide.peak_memory_per_worker, queue.peak_memory_per_worker)
    assert tide.makespan <= 1.05 * queue.makespan, tide.makespan / queue.makespan


def _landings(x, monkeypatch):
    """Run x on the twin (tidegate, 2 x 1) and return (graph, [(root, the task whose start
    or end landed it, tasks finished by then)]) for every loaded chunk."""
    from tidegate import books as B
    from tidegate.sim import simulate
    from tidegate.sim.model import graph_of

    dsk, out, _, _ = graph_of(x, finalize=True)
    with _Sizes() as s:
        dask.local.get_sync(dsk, out)
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
    simulate(dsk, keys=out, workers=2, threads_per_worker=1, policy="tidegate",
             sizes=lambda k: s.size.get(k, 0), processes=1)
    return dsk, [e for e in landed if str(e[0][0]).startswith("open_dataset")]


def _readers(dsk, key):
    return {k for k, node in dsk.items() if key in node.dependencies}


def test_groupby_anomaly_chunk_does_not_land_at_its_month_split(tmp_path, monkeypatch):
    """The plugin's books: a chunk of ``u.groupby("time.month") - clim`` is read by 30
    day slices and by shuffle-splits of (chunk, a ~280-byte indexer computed from
    nothing). The indexer is no second input (``policy.second_input``), so a split cuts
    the chunk (a reduction while its siblings still read it, or a chain step carrying it
    on) and does not consume it. Main: 18-22 of the 25 chunks landed at a split, most with
    day slices still to read them (probe24 LocalCluster 2 x 1: 1.18x queuing's RSS; twin
    of that run 253.5 MB against queuing's 180.9, now 188.7); now 0-1 (3 namings): a
    split whose indexer has not run yet when a sibling asks still counts it. Fails on main.
    (Still early: a split keeping a quarter of the chunk carries the data on and the chunk
    itself lands, its day slices pending: books.on_finished's chain branch.)"""
    u = _store(tmp_path / "in.zarr")
    anom = (u.groupby("time.month") - u.groupby("time.month").mean()).rename("anom")
    dsk, landed = _landings(anom.to_dataset().to_zarr(tmp_path / "out.zarr", compute=False),
                            monkeypatch)
    assert len(landed) == 25, len(landed)  # every chunk, once
    at_split = [(root[1], at) for root, at, _ in landed if str(at[0]).startswith("shuffle-split")]
    assert len(at_split) <= 2, at_split


def test_rolling_chunk_lands_past_its_masked_copy(tmp_path, monkeypatch):
    """The plugin's books: a chunk of ``u.rolling(time=5).mean()`` is read by
    ``invert(isnan(u))`` and ``where(~mask, u, 0)`` of (u, the mask); the mask of u is no
    second input, so u's data goes on in the masked copy and lands after both have run
    (main: at invert, the 15.6 MB copy in flight nowhere; twin 2 x 1 of probe24's run
    183.8 MB against queuing's 120.7, now 112.1). Fails on main."""
    u = _store(tmp_path / "in.zarr")
    dsk, landed = _landings(u.rolling(time=5, center=True).mean().max("time"), monkeypatch)
    assert len(landed) == 25, len(landed)
    early = [(root[1], at, len(_readers(dsk, root) - done)) for root, at, done in landed
             if not _readers(dsk, root) <= done]
    assert not early, early
