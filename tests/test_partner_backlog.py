"""policy.PARTNER_BACKLOG (tie52): a root whose partners all sit on a worker far behind (more
tasks processing than PARTNER_BACKLOG x its threads) is placed as one without partners. The
graph (rev51m's): C_i = f(M_i, F_i), M_i a 100 MB load also read by a small E_i, F_i one of
n 100 MB pieces of one big root R. R's worker queues its n pieces; every load's partner is
a piece there, so the loads waited for that worker (or passed onto it, ahead of the pieces
the other workers' consumers waited for) while the other workers ran dry.
PARTNER_BACKLOG_CUT (tie52b): only a root whose piece is cut already leaves (or, on two-thread
workers, one placed while a worker idles): every load leaving freed R's threads to cut pieces
faster than their consumers fetched them (R's worker over queuing's peak, 4 x 4 n 24)."""
from __future__ import annotations

import pytest

from tidegate import policy
from tidegate.policy import partner_backlog_leaves, partner_backlogged


def test_a_worker_is_backlogged_past_its_threads_times_the_depth(monkeypatch):
    monkeypatch.setattr(policy, "PARTNER_BACKLOG", 4)
    assert partner_backlogged(9, 2) and not partner_backlogged(8, 2)
    assert not partner_backlogged(13, 4)  # (rechunk-add's busy pairs: 8-13 on 4 threads)
    assert not partner_backlogged(9, 1)  # (one thread: tasks queue behind it as a rule)
    monkeypatch.setattr(policy, "PARTNER_BACKLOG", 0)
    assert not partner_backlogged(100, 2)


def test_a_root_leaves_when_its_partner_is_cut_or_a_two_thread_backlog_idles_a_worker(
        monkeypatch):
    monkeypatch.setattr(policy, "PARTNER_BACKLOG_CUT", 2)
    monkeypatch.setattr(policy, "PARTNER_BACKLOG_FRONT", 1)
    assert partner_backlog_leaves(False, 30, 4, False)  # (its piece cut: meets it at once)
    assert partner_backlog_leaves(True, 1, 2, False)  # (next to be cut on 2 threads)
    assert not partner_backlog_leaves(True, 2, 2, False)
    assert partner_backlog_leaves(True, 2, 2, True)
    assert not partner_backlog_leaves(True, 4, 4, True)  # (four threads: cut only)
    assert not partner_backlog_leaves(True, 0, 4, False)
    monkeypatch.setattr(policy, "PARTNER_BACKLOG_CUT", 1)
    assert not partner_backlog_leaves(True, 2, 2, True)
    monkeypatch.setattr(policy, "PARTNER_BACKLOG_CUT", 0)
    assert partner_backlog_leaves(True, 30, 4, False)


def _pieces_beside_loads(n):
    """rev51m's graph (test_kept_whole_combine's): dsk, keys, sizes, durations."""
    from test_kept_whole_combine import _pieces_beside_loads as pieces

    kw, dsk = pieces(n)
    return dsk, kw["keys"], kw["sizes"], kw["durations"]


@pytest.mark.parametrize("n, workers", [(16, 4), (32, 8)])
def test_twin_loads_do_not_wait_for_the_pieces_worker(monkeypatch, n, workers):
    """The rule against itself off, on the twin of the installed distributed: far faster,
    no higher a peak. Against queuing on distributed 2026.11 (without the rule 1.21x /
    1.50x its time, with it 0.98x / 1.09x, peak and bytes at or below); on 2025.4.0, whose
    own placement differs, 1.31 / 2.46x -> 1.20 / 1.17x, its peak 1.22 / 0.93x either way
    (so the bounds below are the rule's own, not queuing's)."""
    pytest.importorskip("distributed")
    from tidegate.sim import simulate

    dsk, keys, sizes, durations = _pieces_beside_loads(n)
    monkeypatch.setattr(policy, "PARTNER_BACKLOG_CUT", 2)
    runs = {}
    for depth in (0, 4):
        monkeypatch.setattr(policy, "PARTNER_BACKLOG", depth)
        runs[depth], = simulate(dsk, keys=keys, sizes=sizes, durations=durations,
                                workers=workers, threads_per_worker=2, policy=["tidegate"],
                                processes=1, record_memory=False)  # fmt: skip
    off, on = runs[0], runs[4]
    assert on.makespan <= 0.95 * off.makespan, (on.makespan, off.makespan)
    assert max(on.peak_memory_per_worker) <= max(off.peak_memory_per_worker)


def test_twin_loads_leaving_do_not_raise_the_pieces_worker_over_queuing(monkeypatch):
    """4 x 4, n 24: with every load leaving (PARTNER_BACKLOG_CUT 0) R's worker held R and 21
    pieces at 2.55 s, 5,200 MB against queuing's 4,700 (16 pieces); narrowed, 4,300."""
    pytest.importorskip("distributed")
    from tidegate.sim import simulate

    dsk, keys, sizes, durations = _pieces_beside_loads(24)
    monkeypatch.setattr(policy, "PARTNER_BACKLOG", 4)
    monkeypatch.setattr(policy, "PARTNER_BACKLOG_CUT", 2)
    q, t = simulate(dsk, keys=keys, sizes=sizes, durations=durations, workers=4,
                    threads_per_worker=4, policy=["queue", "tidegate"], processes=1,
                    record_memory=False)
    assert max(t.peak_memory_per_worker) <= max(q.peak_memory_per_worker)
