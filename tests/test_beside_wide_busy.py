"""policy.BESIDE_WIDE_BUSY 2 (sten48): BESIDE_WIDE's four spread roots per eight threads also
at a graph's start (nothing but roots processing) on clusters of two or more workers."""
from __future__ import annotations

import pytest

from tidegate import policy


def test_wide_at_the_start_only_on_two_or_more_workers(monkeypatch):
    """asks_wide where only roots process (roots_processing == processing): with
    BESIDE_WIDE_BUSY 2 on a worker of a cluster of two or more (``alone`` False), not on a
    cluster's only worker; 1 never, 0 always; beside other work all three."""
    monkeypatch.setattr(policy, "BESIDE_WIDE", 4)
    monkeypatch.setattr(policy, "BESIDE_WIDE_THREADS", 8)
    monkeypatch.setattr(policy, "BESIDE_WIDE_BUSY", 2)
    monkeypatch.setattr(policy, "BESIDE_WIDE_ALONE", 2)
    assert policy.asks_wide(8, 2, 2, alone=False)
    assert not policy.asks_wide(8, 2, 2, alone=True)
    assert not policy.asks_wide(8, 2, 2)  # (the default: guarded)
    # (BESIDE_WIDE_ALONE 3, sten49: a third there, not a fourth; per eight threads)
    monkeypatch.setattr(policy, "BESIDE_WIDE_ALONE", 3)
    assert policy.asks_wide(8, 2, 2, alone=True)
    assert not policy.asks_wide(8, 3, 3, alone=True)
    assert policy.asks_wide(8, 3, 3, alone=False)
    assert policy.asks_wide(16, 5, 5, alone=True)
    assert not policy.asks_wide(16, 6, 6, alone=True)
    assert policy.asks_wide(8, 3, 5, alone=True)  # (beside other work: BESIDE_WIDE's 4)
    assert policy.asks_wide(8, 2, 5, alone=True)
    assert not policy.asks_wide(4, 2, 2, alone=False)  # (fewer than BESIDE_WIDE_THREADS)
    assert not policy.asks_wide(8, 4, 4, alone=False)  # (BESIDE_WIDE's four processing)
    monkeypatch.setattr(policy, "BESIDE_WIDE_BUSY", 1)
    assert not policy.asks_wide(8, 2, 2, alone=False)
    assert policy.asks_wide(8, 2, 5, alone=False)
    monkeypatch.setattr(policy, "BESIDE_WIDE_BUSY", 0)
    assert policy.asks_wide(8, 2, 2, alone=True)


def test_two_eight_thread_workers_load_four_blocks_at_the_start_at_2ms(monkeypatch):
    """The 6 x 6 block stencil on 2 x 8 with a 2 ms overrun a task: since SPREAD_IN_ORDER
    the start's blocks are the first the sweep needs, but only two loaded per worker until
    a slice processed there (BESIDE_WIDE_BUSY 1): the threads idled ~10 ms at the start.
    Over five namings x two seeds, summed: 0.935x queuing's makespan with 1, 0.901x with 2
    (held: at most 0.98x); each run's peak at or below queuing's (1: one run 0.37 MB over;
    8 halo rows allowed)."""
    pytest.importorskip("distributed")
    from tidegate.distributed import install

    from test_stencil import ROW, _stencil_at_2ms_summed

    monkeypatch.setattr(policy, "SPREAD_IN_ORDER", 1)
    monkeypatch.setattr(policy, "BESIDE_WIDE", 4)
    monkeypatch.setattr(policy, "BESIDE_WIDE_BUSY", 2)
    tide, queue = _stencil_at_2ms_summed(threads=8, peak_over=8 * ROW)
    monkeypatch.setattr(policy, "BESIDE_WIDE_BUSY", 1)
    before, _ = _stencil_at_2ms_summed(threads=8, peak_over=float("inf"))
    if not install._starts_by_walk():
        # (before distributed 2025.5 roots came in priority order: the gain is not the
        # in-order start's; held to no loss there)
        assert tide <= 1.01 * before, (tide / queue, before / queue)
        return
    assert tide <= 0.98 * before, (tide / queue, before / queue)
