"""policy.SPREAD_CAP (pk41): where a spread root's group (a stencil's blocks) loads whole at
once under the count, such a root meets a cap of its worker's threads on four-thread
workers, not saturation x threads."""
from __future__ import annotations

import math

import dask.array as da
import pytest

from tidegate import policy
from tidegate.books import Books
from tidegate.policy import Policy, loads_at_once, spread_cap


def test_spread_cap_is_the_threads_on_four_to_seven_thread_workers(monkeypatch):
    monkeypatch.setattr(policy, "SPREAD_CAP", 1)
    assert spread_cap(5, 4) == 4
    assert spread_cap(7, 6) == 6
    assert spread_cap(9, 8) == 9  # (SPREAD_CAP_BELOW 8: not on eight threads)
    assert spread_cap(3, 2) == 3 and spread_cap(2, 1) == 2
    assert spread_cap(math.inf, 4) == 4
    monkeypatch.setattr(policy, "SPREAD_CAP_BELOW", math.inf)
    assert spread_cap(9, 8) == 8
    monkeypatch.setattr(policy, "SPREAD_CAP", 0)
    assert spread_cap(5, 4) == 5


def test_a_group_loads_at_once_where_the_caps_hold_it():
    assert loads_at_once(36, 8 * 5)  # the stencil's blocks on 8 x 4
    assert not loads_at_once(36, 2 * 5)  # 2 x 4: loaded in waves
    assert loads_at_once(36, 36)


def _four_thread_book(roots_processing: int):
    books = Books(Policy())
    book = books.add_worker("w", 4, math.inf)
    book.processing = book.roots_processing = roots_processing
    return books, book


@pytest.mark.parametrize("switch", [0, 1])
def test_a_spread_root_of_a_group_loading_at_once_waits_for_a_thread(monkeypatch, switch):
    """Four roots processing on four threads (cap 5): a spread root whose group loads at
    once (``spread`` 2) waits; a spread root of a larger group (True) is admitted by the
    count as before; with SPREAD_CAP 0 both are."""
    monkeypatch.setattr(policy, "SPREAD_CAP", switch)
    books, book = _four_thread_book(4)
    assert book.cap == 5
    assert books._admits(book, "w", "r", 8e6, False, None, spread=True)
    assert books._admits(book, "w", "r", 8e6, False, None, spread=2) is (not switch)
    books, book = _four_thread_book(3)
    assert books._admits(book, "w", "r", 8e6, False, None, spread=2)


def stencil_over_queuing(monkeypatch, switch: str, workers: int, threads: int,
                         values=(0, 1)):  # fmt: skip
    """The 6 x 6 block stencil (10 ms overrun a task) on workers x threads, policy switch
    ``switch`` at each of ``values``, over three namings x two seeds: tidegate's makespans
    summed and its runs over queuing's peak (8 halo rows allowed), each by the switch's
    value."""
    from _namings import renamed

    from tidegate.sim import simulate
    from tidegate.sim.model import build_model

    from test_stencil import MEASURED, REDUCED, ROW, _double

    a = da.random.RandomState(2).random((6000, 6000), chunks=1000)
    x = a.map_overlap(_double, depth=1, boundary="none", name="stencil-a").std(axis=0)
    model = build_model(x, sizes=REDUCED, durations=MEASURED, finalize=True)
    span = dict.fromkeys(values, 0.0)
    over = dict.fromkeys(values, 0)
    for salt in (None, 1, 2):
        for seed in (0, 1):
            for on in values:
                monkeypatch.setattr(policy, switch, on)
                queue, tide = simulate(renamed(model, salt), workers=workers,
                                       threads_per_worker=threads,
                                       bandwidth=200e6, outgoing_bandwidth=200e6,
                                       latency=0.001, thread_lag=0.01, seed=seed,
                                       policy=["queue", "tidegate"], record_memory=False,
                                       processes=1)  # fmt: skip
                span[on] += tide.makespan
                over[on] += max(tide.peak_memory_per_worker) > \
                    max(queue.peak_memory_per_worker) + 8 * ROW  # fmt: skip
    return span, over


def test_twin_stencil_eight_four_thread_workers_stay_within_queuings_peak(monkeypatch):
    """The 6 x 6 block stencil on 8 x 4 with a 10 ms overrun per task: the count let all 36
    blocks load at once, five on half the workers, whose slices interleave (dask's
    priorities) before any block was freed: over queuing's peak by a block in most runs
    (bench/ab_twin.py, 60 runs: 39 over 1.05x). With SPREAD_CAP each run's peak is at most
    queuing's (8 halo rows allowed) over three namings x two seeds, and the makespan summed
    no more than 1.05x the run without."""
    pytest.importorskip("distributed")
    monkeypatch.setattr(policy, "SPREAD_REGION", 0)  # (regions act first on 4+ threads)
    span, over = stencil_over_queuing(monkeypatch, "SPREAD_CAP", 8, 4)
    assert over[1] == 0 < over[0], over
    assert span[1] <= 1.05 * span[0], span


def test_twin_stencil_eight_four_thread_workers_by_regions(monkeypatch):
    """The same stencil on 8 x 4 with compact regions (policy.SPREAD_REGION on four threads
    since session 42, a cap of 3 of 4): no run over queuing's peak, the makespan summed
    within 1.05x the runs without regions (SPREAD_CAP's)."""
    pytest.importorskip("distributed")
    span, over = stencil_over_queuing(monkeypatch, "SPREAD_REGION", 8, 4)
    assert over[1] == 0, over
    assert span[1] <= 1.05 * span[0], span
