"""policy.HANDLE_UNOWE and policy.HINT_SHARE (seed43): the seed's slice-add as
bench/distributed.py builds it (two zarr arrays of 12 chunks of four steps, ``a[1:] +
b[1:]`` stored: one handle per array, a load and a slice per chunk, one store per chunk
pair, one final task over the stores) on four-thread workers in the twin. Each handle was
walked as data before it ran (policy.handle_meets) and its worker kept 12 reservations of
the other array's loads when the handles finished; and every load of the first array
hinted the worker of the first one placed (their further meeting: the final task over the
stores), up to its cap. Two workers took the first wave: 1.44-2.20x queuing's peak."""
from __future__ import annotations

import math

import dask.array as da
import pytest

from tidegate import policy
from tidegate.books import Books
from tidegate.policy import Policy, drops_reservations, hint_within_share

CHUNK = 32_000_000  # four steps of 1000 x 1000 float64, as bench/distributed.py's zarr
# the durations its tasks take on a LocalCluster (bench/results/wall24-measured.json)
DURATIONS = {"from-zarr-a-getitem": 0.012, "from-zarr-b-getitem": 0.012, "getitem": 2e-5,
             "store-map": 0.23, "original-from-zarr-a": 0.002, "original-from-zarr-b": 0.002,
             "finalize-hlgfinalizecompute": 1e-4}


def _slice_add():
    from tidegate.sim.model import build_model
    from tidegate.sim.workloads import NoData

    shape, chunks = (48, 1000, 1000), (4, 1000, 1000)
    a = da.from_array(NoData(shape), chunks=chunks, name="from-zarr-a")
    b = da.from_array(NoData(shape), chunks=chunks, name="from-zarr-b")
    # (a[1:]'s chunks straddle the target's: dask's store takes a lock, as the bench's)
    stored = da.store(a[1:] + b[1:], NoData((47, 1000, 1000)), lock=True, compute=False)
    return build_model(stored, sizes={"store-map": 16, "finalize-hlgfinalizecompute": 16},
                       durations=DURATIONS, finalize=True)


def _peaks(monkeypatch, workers, lag, **switches):
    """[(tidegate's peak, queuing's)] per twin seed, the switches set; FURTHER_GATHER 0
    unless given: these stores meet only in their finalize, whose further-meeting hint was
    part of the case these rules mend (with it every setting of test_twin_slice_add_eight_
    by_four_the_hint_shares gives 1.2x; test_further_gather.py)."""
    from tidegate.sim import simulate

    switches.setdefault("FURTHER_GATHER", 0)
    for name, value in switches.items():
        monkeypatch.setattr(policy, name, value)
    model = _slice_add()
    out = []
    for seed in range(3):
        queue, tide = simulate(model, workers=workers, threads_per_worker=4, bandwidth=200e6,
                               outgoing_bandwidth=200e6, latency=0.001, thread_lag=lag,
                               seed=seed, policy=["queue", "tidegate"], record_memory=False,
                               processes=1)  # fmt: skip
        out.append((max(tide.peak_memory_per_worker), max(queue.peak_memory_per_worker)))
    return out


def test_a_handle_found_handle_sized_drops_its_reservations(monkeypatch):
    monkeypatch.setattr(policy, "HANDLE_UNOWE", 1)
    assert drops_reservations(0, 12, 56)  # a zarr array's handle, read by 12 loads
    assert not drops_reservations(0, 12, 8e6)  # a stencil's block (data after all)
    assert not drops_reservations(0, 4, 56)  # read by few: its readers are no roots
    assert not drops_reservations(1, 12, 56)  # computed from data
    monkeypatch.setattr(policy, "HANDLE_UNOWE", 0)
    assert not drops_reservations(0, 12, 56)


def test_books_unreserve_for_frees_the_slots_a_root_reserved():
    books = Books(Policy())
    books.add_worker("w", 4, math.inf)
    books.add_worker("v", 4, math.inf)
    assert books.place("h", 56, "h", {}, ["w"], lacks={"r1", "r2", "r3"}) == "w"
    assert books.workers["w"].owed == 3 and books.reserved("r1")
    books.unreserve_for("h")
    assert books.workers["w"].owed == 0 and not books.reserved("r1")
    books.unreserve_for("h")  # (nothing left: no change)
    assert books.workers["w"].owed == 0


def test_a_hint_binds_within_the_share_only_where_the_group_loads_at_once(monkeypatch):
    monkeypatch.setattr(policy, "HINT_SHARE", 1)
    # 12 loads over 4 workers of cap 5 (20 summed): at once, a share of 3
    assert hint_within_share(2, 12, 4, 20) and not hint_within_share(3, 12, 4, 20)
    # 12 loads over 2 workers of cap 5: the count staggers them, the hint holds
    assert hint_within_share(9, 12, 2, 10)
    monkeypatch.setattr(policy, "HINT_SHARE", 0)
    assert hint_within_share(3, 12, 4, 20)


def test_twin_slice_add_four_by_four_within_queuings_peak(monkeypatch):
    """4 x 4 at 2 and 10 ms: every run at or below queuing's peak; with the handles'
    reservations kept (HANDLE_UNOWE off) over it in every run (1.07x and 1.18x here), with
    the hint's share off too 1.12-1.21x at 2 ms."""
    pytest.importorskip("distributed")
    on = _peaks(monkeypatch, 4, 0.002, HANDLE_UNOWE=1, HINT_SHARE=1)
    assert all(t <= q for t, q in on), on
    kept = _peaks(monkeypatch, 4, 0.002, HANDLE_UNOWE=0, HINT_SHARE=1)
    assert all(t > 1.05 * q for t, q in kept), kept
    off = _peaks(monkeypatch, 4, 0.002, HANDLE_UNOWE=0, HINT_SHARE=0)
    assert all(t > 1.1 * q for t, q in off), off
    slow = _peaks(monkeypatch, 4, 0.01, HANDLE_UNOWE=1, HINT_SHARE=1)
    assert all(t <= q for t, q in slow), slow
    kept = _peaks(monkeypatch, 4, 0.01, HANDLE_UNOWE=0, HINT_SHARE=1)
    assert all(t > 1.05 * q for t, q in kept), kept


def test_twin_slice_add_eight_by_four_the_hint_shares(monkeypatch):
    """8 x 4 at 2 ms: without the share every load of the first array hinted the first
    worker that took one, up to its cap (five pairs on two workers: 2.1x queuing's peak
    with the reservations dropped); with it each worker takes its share and the pairs
    follow (1.5x: twelve pairs over eight workers, two on some, where queuing holds three
    loads a worker and copies half the pairs' slices). HINT_SHARE 3 (a whole hint of
    several workers within the share too): the group's last load no longer joins the worker
    holding most (1.2x). UNIT_STAGGER off: with it every setting here gives 1.2x
    (test_unit_stagger.py)."""
    pytest.importorskip("distributed")
    whole = _peaks(monkeypatch, 8, 0.002, HANDLE_UNOWE=1, HINT_SHARE=3, UNIT_STAGGER=0)
    on = _peaks(monkeypatch, 8, 0.002, HANDLE_UNOWE=1, HINT_SHARE=1, UNIT_STAGGER=0)
    off = _peaks(monkeypatch, 8, 0.002, HANDLE_UNOWE=1, HINT_SHARE=0, UNIT_STAGGER=0)
    for (t_whole, q), (t_on, _), (t_off, _) in zip(whole, on, off):
        assert t_whole <= 1.25 * q < t_on <= 1.6 * q < t_off, (whole, on, off)
