"""policy.UNIT_STAGGER (seed44): the seed's slice-add (test_handle_share's graph: two zarr
arrays of 12 chunks, a load and a slice per chunk, one store per chunk pair, one final task)
on 8 x 4 in the twin. Its 24 loads fit the caps summed (40): with the hint's share (seed43)
every worker took two chunk pairs at once, both pairs' loads and slices held together
(1.45-1.5x queuing's peak), and the two handles' workers none. Staggered, a worker opens
its second pair once the first pair's data is consumed (its store started)."""
from __future__ import annotations

import math

import pytest

from test_handle_share import _peaks
from tidegate import policy
from tidegate.books import Books
from tidegate.policy import Policy, staggers_unit, unit_waits_short


def test_a_unit_waits_where_it_does_not_fit_the_share(monkeypatch):
    monkeypatch.setattr(policy, "UNIT_STAGGER", 1)
    # a pair's opener, 12 of its group over 8 workers: 3 slots a worker
    assert not staggers_unit(1, 2, 12, 8)  # (a store's handle held there: it fits)
    assert staggers_unit(2, 2, 12, 8)  # a pair in flight: the next waits
    assert not staggers_unit(4, 2, 12, 4)  # over 4 workers: 6 slots, three pairs at once
    assert staggers_unit(5, 2, 12, 4)
    assert not staggers_unit(4, 1, 12, 8)  # no partners to open: not a unit
    assert not staggers_unit(0, 4, 6, 8)  # a unit larger than the share fits once
    assert staggers_unit(1, 4, 6, 8)
    monkeypatch.setattr(policy, "UNIT_STAGGER", 2)  # whenever a unit is in flight
    assert staggers_unit(2, 2, 12, 4) and not staggers_unit(1, 2, 12, 4)
    monkeypatch.setattr(policy, "UNIT_STAGGER", 0)
    assert not staggers_unit(5, 2, 12, 4)


def books_with_a_pair_on_w():
    books = Books(Policy())
    books.add_worker("w", 4, math.inf)
    books.add_worker("v", 4, math.inf)
    assert books.place("a1", math.nan, "a", {}, ["w", "v"], lacks={"b1"},
                       stagger=(12, 8)) == "w"
    books.on_run("a1", "w", True, "a", math.nan)
    assert books.workers["w"].slots_used == 2  # a1 running, b1 owed
    return books


def test_books_place_staggers_a_fresh_opener_off_a_busy_worker(monkeypatch):
    monkeypatch.setattr(policy, "UNIT_STAGGER", 1)
    books = books_with_a_pair_on_w()
    # w listed first (least loaded: owed roots are not in the load order) refuses the
    # second pair's opener: v takes it
    assert books.place("a2", math.nan, "a", {}, ["w", "v"], lacks={"b2"},
                       stagger=(12, 8)) == "v"
    assert ("a2", "withheld", "w", None) in books.log
    # the pair's other root, reserved on w, is no opener there
    assert books.place("b1", math.nan, "b", {"w": 1}, ["w", "v"], complete={"w"},
                       stagger=(12, 8)) == "w"
    books = books_with_a_pair_on_w()
    assert books.place("a2", math.nan, "a", {}, ["w", "v"], lacks={"b2"}) == "w"  # no wave
    books = books_with_a_pair_on_w()
    assert books.place("a2", math.nan, "a", {}, ["w", "v"], lacks={"b2"},
                       stagger=(12, 2)) == "w"  # a share of 12 slots: it fits
    monkeypatch.setattr(policy, "UNIT_STAGGER", 0)
    books = books_with_a_pair_on_w()
    assert books.place("a2", math.nan, "a", {}, ["w", "v"], lacks={"b2"},
                       stagger=(12, 8)) == "w"


def test_a_reserved_root_opening_a_unit_is_no_fresh_opener_on_its_worker(monkeypatch):
    # (review44) b1, reserved on w by a1's meeting, lacks c1 itself (a unit of 2, past w's
    # share of 12 over 8): reserved there, it still goes to w.
    monkeypatch.setattr(policy, "UNIT_STAGGER", 1)
    books = books_with_a_pair_on_w()
    assert books.place("b1", math.nan, "b", {}, ["w", "v"], lacks={"c1"},
                       stagger=(12, 8)) == "w"


@pytest.mark.parametrize("lag", [0.002, 0.01])
def test_twin_slice_add_eight_by_four_staggers_its_pairs(monkeypatch, lag):
    """8 x 4: staggered, 1.2x queuing's peak here (a worker's second pair loads beside its
    first pair's slices held by their store: six chunks against queuing's five; 1.000x in
    every run of the bench's model, seed44-findings.txt); without, 1.45-1.5x."""
    pytest.importorskip("distributed")
    on = _peaks(monkeypatch, 8, lag, HANDLE_UNOWE=1, HINT_SHARE=1, UNIT_STAGGER=1)
    off = _peaks(monkeypatch, 8, lag, HANDLE_UNOWE=1, HINT_SHARE=1, UNIT_STAGGER=0)
    for (t_on, q), (t_off, _) in zip(on, off):
        assert t_on <= 1.25 * q < 1.4 * q < t_off, (on, off)


def test_a_wait_is_short_only_where_dask_knows_it_is():
    assert unit_waits_short(0.012, 2e-5, 0.23)  # the seed's loads, slice and store
    assert not unit_waits_short(0.3, 0.05, 0.55)  # the twin's default model, 50 MB
    assert not unit_waits_short(0.012, 0.0, 0.06)  # a fifth of the store: +13-15% time
    assert not unit_waits_short(-1, 0.0, 0.23)  # a first compute: nothing known
    assert not unit_waits_short(0.012, 0.0, -1)
    assert not unit_waits_short(0.012, -1, 0.23)


def _runs(model, workers, lag, warm, stagger, monkeypatch, seeds=3, gather=0):
    """[(tidegate's makespan, its peak, queuing's peak)] per twin seed, UNIT_STAGGER
    ``stagger``; ``warm``: dask's default-task-durations (a scheduler that knows them);
    ``gather``: FURTHER_GATHER (0: as test_handle_share._peaks)."""
    import dask

    from tidegate.sim import simulate

    monkeypatch.setattr(policy, "UNIT_STAGGER", stagger)
    monkeypatch.setattr(policy, "FURTHER_GATHER", gather)
    out = []
    with dask.config.set({"distributed.scheduler.default-task-durations": warm}):
        for seed in range(seeds):
            queue, tide = simulate(model, workers=workers, threads_per_worker=4,
                                   bandwidth=200e6, outgoing_bandwidth=200e6, latency=0.001,
                                   thread_lag=lag, seed=seed, policy=["queue", "tidegate"],
                                   record_memory=False, processes=1)  # fmt: skip
            out.append((tide.makespan, max(tide.peak_memory_per_worker),
                        max(queue.peak_memory_per_worker)))
    return out


@pytest.mark.parametrize("lag", [0.002, 0.01])
def test_twin_slice_add_staggers_where_its_loads_are_known_short(monkeypatch, lag):
    """UNIT_STAGGER 3 (seed45): with the seed's durations known to dask (a scheduler that
    ran it before), 8 x 4 staggers as 1 does (<= 1.25x queuing's peak; 0: > 1.4x); on a
    first compute (nothing known) it stays as 0, run for run."""
    pytest.importorskip("distributed")
    from test_handle_share import DURATIONS, _slice_add

    model = _slice_add()
    warm = _runs(model, 8, lag, DURATIONS, 3, monkeypatch)
    for _, peak, queue in warm:
        assert peak <= 1.25 * queue, warm
    for _, peak, queue in _runs(model, 8, lag, DURATIONS, 0, monkeypatch):
        assert peak > 1.4 * queue
    cold = _runs(model, 8, lag, {}, 3, monkeypatch)
    assert cold == _runs(model, 8, lag, {}, 0, monkeypatch)
    for _, peak, queue in cold:
        assert peak > 1.4 * queue, cold


def test_twin_long_loads_known_are_not_staggered(monkeypatch):
    """The twin's default model (50 MB loads of 0.3 s beside stores of 0.55 s: the
    fingerprints' slice-add 20 x 4, 24 pairs over 20 workers), its durations known:
    UNIT_STAGGER 3 leaves it as 0, where 1 makes four workers' second pair wait a load
    (1.23x queuing's time, seed44-findings.txt)."""
    pytest.importorskip("distributed")
    import statistics

    from dask.utils import key_split

    from tidegate.sim.workloads import build

    model = build("slice-add", steps=24, chunk_bytes=50e6, store=False)
    model = model.model()
    by: dict = {}
    for key, d in model.durations.items():
        by.setdefault(key_split(key), []).append(d)
    warm = {p: statistics.mean(v) for p, v in by.items()}
    run = [_runs(model, 20, 0.0, warm, v, monkeypatch, seeds=1)[0] for v in (0, 1, 3)]
    assert run[2] == run[0] and run[1][0] > 1.1 * run[0][0], run
