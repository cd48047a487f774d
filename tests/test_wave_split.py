"""policy.UNIT_STAGGER 6 (seed49): where a wave's loads are not known short (a first
compute), its worker's even share caps a root as in mode 5, and a root the share refuses on
its partners' workers goes to the least loaded worker whose share admits it (its pair
splits, one slice copied to the store) instead of waiting a load for a slot there. The
seed's slice-add on 8 x 4 (12 chunk pairs, test_handle_share's graph): four workers take
two pairs, six chunks against queuing's five; split, five. The twin's default model
(0.3 s loads): mode 5's wait costs 1.18x queuing's time, the split a copy."""
from __future__ import annotations

import math

import pytest

from test_wave_cap import _books_with_three_loads_on_w
from tidegate import policy
from tidegate.policy import wave_splits


def test_a_refusal_splits_only_where_every_partners_share_is_taken():
    assert wave_splits([(3, 5)], 24, 8)  # the seed's share of 3 taken
    assert not wave_splits([(2, 5)], 24, 8)  # room in the share: refused for another reason
    assert not wave_splits([(3, 5), (2, 5)], 24, 8)
    assert wave_splits([(5, 5)], 24, 4)  # the cap binds below a share of 6
    assert not wave_splits([], 24, 8)


def test_a_follower_refused_by_its_share_goes_to_the_least_loaded_worker(monkeypatch):
    monkeypatch.setattr(policy, "UNIT_STAGGER", 6)
    books = _books_with_three_loads_on_w()
    assert books.place("b2", math.nan, "b", {"w": 1}, ["w", "v"], complete={"w"},
                       stagger=(24, 8, True)) == "v"
    assert ("b2", "withheld", "w", None) in books.log
    # without the split item it waits, as mode 4 / 5
    books = _books_with_three_loads_on_w()
    assert books.place("b2", math.nan, "b", {"w": 1}, ["w", "v"], complete={"w"},
                       stagger=(24, 8)) is None
    # where the other worker took its share too, it waits
    books = _books_with_three_loads_on_w()
    for root in ("c1", "c2", "c3"):
        assert books.place(root, math.nan, "c", {}, ["v"]) == "v"
        books.on_run(root, "v", True, "c", math.nan)
    assert books.place("b2", math.nan, "b", {"w": 1}, ["w", "v"], complete={"w"},
                       stagger=(24, 8, True)) is None


def test_the_split_reads_no_more_candidates_than_place_itself(monkeypatch):
    """review49: the split listed every free worker for each root asked (1,000 at 1,000
    workers), a follower its partner's worker admits and an opener with no partners too.
    Now the second ask reads only what the first passed over, and a root with no
    partners is asked once, as mode 4 / 5."""
    from tidegate.books import Books
    from tidegate.policy import Policy

    monkeypatch.setattr(policy, "UNIT_STAGGER", 6)
    pulled = []

    def candidates():
        for i in range(1000):
            pulled.append(i)
            yield f"w{i}"

    books = Books(Policy())
    for i in range(1000):
        books.add_worker(f"w{i}", 4, math.inf)
    assert books.place("a1", math.nan, "a", {}, ["w0"], lacks={"b1"}) == "w0"
    books.on_run("a1", "w0", True, "a", math.nan)
    assert books.place("b1", math.nan, "b", {"w0": 1}, candidates(), complete={"w0"},
                       stagger=(2000, 1000, True)) == "w0"
    assert pulled == []  # its partner's worker admits it: nothing else read
    assert books.place("a2", math.nan, "a", {}, candidates(), lacks={"b2"},
                       stagger=(2000, 1000, True)) == "w0"
    assert len(pulled) == 1  # the least loaded first: the first admits


def test_a_split_root_opens_its_meeting_as_any_root_does():
    """review49: the split's second ask passed only ``lacks``: a root that opens its
    meeting (``commits``) was placed on a worker with no thread free, where the same ask
    without partners refuses it. Now the split asks with the same arguments."""
    from tidegate.books import Books
    from tidegate.policy import Policy

    def books_w_full_v_busy():
        books = Books(Policy())
        books.add_worker("w", 4, math.inf)
        books.add_worker("v", 4, math.inf)
        for root in ("x1", "x2", "x3", "x4"):  # w: its share of 8 over 2 taken
            assert books.place(root, math.nan, "x", {}, ["w"]) == "w"
            books.on_run(root, "w", True, "x", math.nan)
        for root in ("y1", "y2", "y3"):  # v: three roots and another task, no thread free
            assert books.place(root, math.nan, "y", {}, ["v"]) == "v"
            books.on_run(root, "v", True, "y", math.nan)
        books.on_run("t", "v", False, "t", math.nan)
        return books

    books = books_w_full_v_busy()
    assert books.place("b1", math.nan, "b", {}, ["v"], lacks={"c1"}, commits=True,
                       stagger=(8, 2)) is None  # asked alone: refused
    books = books_w_full_v_busy()
    assert books.place("b1", math.nan, "b", {"w": 1}, ["v", "w"], lacks={"c1"}, commits=True,
                       stagger=(8, 2, True)) is None  # split: refused the same
    books = books_w_full_v_busy()
    assert books.place("b1", math.nan, "b", {"w": 1}, ["v", "w"], lacks={"c1"},
                       stagger=(8, 2, True)) == "v"  # opening nothing: split there


def _runs(model, workers, lag, mode, monkeypatch, seeds=2, gather=1, net=200e6):
    """[(tidegate / queuing makespan, tidegate's peak / queuing's)] per twin seed, a first
    compute (no durations known), UNIT_STAGGER ``mode``; ``net``: bytes / s in and out
    (None: the twin's defaults, as bench/sim_fingerprints.py)."""
    from tidegate.sim import simulate

    monkeypatch.setattr(policy, "UNIT_STAGGER", mode)
    monkeypatch.setattr(policy, "FURTHER_GATHER", gather)
    out = []
    kw = {} if net is None else dict(bandwidth=net, outgoing_bandwidth=net, latency=0.001,
                                     thread_lag=lag)
    for seed in range(seeds):
        queue, tide = simulate(model, workers=workers, threads_per_worker=4, seed=seed,
                               policy=["queue", "tidegate"], record_memory=False,
                               processes=1, **kw)  # fmt: skip
        out.append((tide.makespan / queue.makespan,
                    max(tide.peak_memory_per_worker) / max(queue.peak_memory_per_worker)))
    return out


@pytest.mark.parametrize("lag", [0.002, 0.01])
def test_twin_seed_slice_add_eight_by_four_cold_within_queuings_peak(monkeypatch, lag):
    pytest.importorskip("distributed")
    from test_handle_share import _slice_add

    model = _slice_add()
    for time, peak in _runs(model, 8, lag, 4, monkeypatch):
        assert peak > 1.1  # a worker's two pairs at once: six chunks
    for time, peak in _runs(model, 8, lag, 6, monkeypatch):
        assert peak <= 1.0 and time <= 1.05


def test_twin_long_loads_split_rather_than_wait(monkeypatch):
    """The twin's default model (its network: 1 GB/s), slice-add 20 x 4, a first
    compute: mode 4 over queuing's peak, mode 5 over 1.1x its time, mode 6 within both."""
    pytest.importorskip("distributed")
    from tidegate.sim.workloads import build

    model = build("slice-add", steps=24, chunk_bytes=50e6, store=False).model()
    (t4, p4), (t5, p5), (t6, p6) = (
        _runs(model, 20, 0.0, m, monkeypatch, seeds=1, net=None)[0] for m in (4, 5, 6))
    assert p4 > 1.1 and t5 > 1.1 and p6 <= 1.0 and t6 <= 1.05, (t4, p4, t5, p5, t6, p6)


def test_twin_a_meeting_beside_shared_inputs_does_not_split(monkeypatch):
    """The default model's vorticity 20 x 4 (u and v meet with three shared grids): split,
    four v-opens left their u-opens and the busiest worker's peak stayed (350 MB) at
    0.58 -> 0.69x queuing's time; only a meeting reading its unit alone splits."""
    pytest.importorskip("distributed")
    from tidegate.sim.workloads import build

    model = build("vorticity", steps=24, chunk_bytes=50e6, store=False).model()
    assert _runs(model, 20, 0.0, 6, monkeypatch, seeds=1, net=None) == \
        _runs(model, 20, 0.0, 4, monkeypatch, seeds=1, net=None)
