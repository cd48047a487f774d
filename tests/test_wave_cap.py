"""policy.UNIT_STAGGER 4 and 5 (slad47): a wave loading whole at once meets its worker's
even share of the wave as its cap (policy.wave_cap), in place of seed44's whole-unit
stagger. The seed's slice-add on 8 x 4 (12 chunk pairs, test_handle_share's graph, the
store's finalize no further meeting: FURTHER_GATHER 1): four workers take two pairs; loaded
at once, or the second pair staggered whole, each holds six chunks (its second pair's two
slices end together beside their loads and the first pair's slices) against queuing's five.
With three loads at once and the fourth after the first is consumed: five."""
from __future__ import annotations

import math

import pytest

from test_unit_stagger import _runs
from tidegate import policy
from tidegate.books import Books
from tidegate.policy import Policy, staggers_unit, wave_cap


def test_the_wave_cap_is_the_even_share_under_the_cap(monkeypatch):
    assert wave_cap(5, 24, 8) == 3  # the seed's 24 loads over 8 workers
    assert wave_cap(5, 24, 4) == 5  # a share of 6: the cap binds
    assert wave_cap(5, 25, 8) == 4  # rounded up
    assert wave_cap(5, 1, 8) == 1 and wave_cap(5, 3, 0) == 3
    monkeypatch.setattr(policy, "UNIT_STAGGER", 4)
    assert not staggers_unit(5, 2, 12, 8)  # no unit waits whole in mode 4


def _books_with_three_loads_on_w():
    """w (4 threads, cap 5) runs a1, a2 and b1; b2 is owed there (a2's partner)."""
    books = Books(Policy())
    books.add_worker("w", 4, math.inf)
    books.add_worker("v", 4, math.inf)
    for root, group, lacks in (("a1", "a", {"b1"}), ("a2", "a", {"b2"})):
        assert books.place(root, math.nan, group, {}, ["w"], lacks=lacks) == "w"
        books.on_run(root, "w", True, group, math.nan)
    assert books.place("b1", math.nan, "b", {"w": 1}, ["w"], complete={"w"}) == "w"
    books.on_run("b1", "w", True, "b", math.nan)
    assert books.workers["w"].roots_processing == 3
    return books


@pytest.mark.parametrize("mode", [4, 5])
def test_a_follower_waits_for_the_wave_share(monkeypatch, mode):
    monkeypatch.setattr(policy, "UNIT_STAGGER", mode)
    books = _books_with_three_loads_on_w()
    # b2 completes its store's inputs on w, but w runs its share of 24 over 8 already
    assert books.place("b2", math.nan, "b", {"w": 1}, ["w"], complete={"w"},
                       stagger=(24, 8)) is None
    assert ("b2", "withheld", "w", None) in books.log
    books = _books_with_three_loads_on_w()
    assert books.place("b2", math.nan, "b", {"w": 1}, ["w"], complete={"w"},
                       stagger=(24, 4)) == "w"  # a share of 6: the cap of 5 binds
    books = _books_with_three_loads_on_w()
    assert books.place("b2", math.nan, "b", {"w": 1}, ["w"], complete={"w"}) == "w"


def test_a_follower_is_not_capped_by_a_whole_unit_stagger(monkeypatch):
    monkeypatch.setattr(policy, "UNIT_STAGGER", 3)
    books = _books_with_three_loads_on_w()
    assert books.place("b2", math.nan, "b", {"w": 1}, ["w"], complete={"w"},
                       stagger=(12, 8)) == "w"


@pytest.mark.parametrize("lag", [0.002, 0.01])
def test_twin_slice_add_eight_by_four_within_queuings_peak_where_loads_are_known_short(
        monkeypatch, lag):
    """Warm (the durations known to dask): mode 4 at queuing's peak, mode 3's whole-unit
    stagger 1.2x (six chunks). Cold: mode 4 is 0 run for run; mode 5 caps there too."""
    pytest.importorskip("distributed")
    from test_handle_share import DURATIONS, _slice_add

    model = _slice_add()

    def runs(warm, mode):
        return _runs(model, 8, lag, warm, mode, monkeypatch, gather=1)

    for _, peak, queue in runs(DURATIONS, 4):
        assert peak <= queue
    for _, peak, queue in runs(DURATIONS, 3):
        assert peak > 1.1 * queue
    cold = runs({}, 4)
    assert cold == runs({}, 0)
    for _, peak, queue in cold:
        assert peak > 1.1 * queue
    for _, peak, queue in runs({}, 5):
        assert peak <= queue


def test_twin_long_loads_known_are_not_capped(monkeypatch):
    """The twin's default model (0.3 s loads beside 0.55 s stores, slice-add 20 x 4),
    durations known: mode 4 leaves it as 0; mode 5 (no durations asked) makes four
    workers' fourth load wait for a slot, over 1.1x the makespan (0.91 -> 1.18x
    queuing's time)."""
    pytest.importorskip("distributed")
    import statistics

    from dask.utils import key_split

    from tidegate.sim.workloads import build

    model = build("slice-add", steps=24, chunk_bytes=50e6, store=False).model()
    by: dict = {}
    for key, d in model.durations.items():
        by.setdefault(key_split(key), []).append(d)
    warm = {p: statistics.mean(v) for p, v in by.items()}
    run = [_runs(model, 20, 0.0, warm, v, monkeypatch, seeds=1)[0] for v in (0, 4, 5)]
    assert run[1] == run[0] and run[2][0] > 1.1 * run[0][0], run
