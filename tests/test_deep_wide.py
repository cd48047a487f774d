"""policy.BESIDE_DEEP_WIDE (sten43): on workers of BESIDE_WIDE_THREADS+ threads a spread root
may wait behind more tasks waiting for a thread than BESIDE_DEEP's two."""
from __future__ import annotations

import pytest

from tidegate import policy


def test_a_spread_root_waits_deeper_on_eight_threads_only(monkeypatch):
    monkeypatch.setattr(policy, "BESIDE_BUSY", 1)
    monkeypatch.setattr(policy, "BESIDE_THIRD", 0)
    monkeypatch.setattr(policy, "BESIDE_DEEP", 2)
    monkeypatch.setattr(policy, "BESIDE_DEEP_WIDE", 4)
    assert policy.may_load_beside(8, 1, 12)
    assert not policy.may_load_beside(8, 1, 13)
    assert not policy.may_load_beside(8, 2, 12)  # (still fewer than two roots processing)
    assert policy.may_load_beside(8, 2, 12, wide=True)
    assert policy.may_load_beside(4, 1, 6) and not policy.may_load_beside(4, 1, 7)
    monkeypatch.setattr(policy, "BESIDE_DEEP_WIDE", 0)  # (BESIDE_DEEP's two everywhere)
    assert policy.may_load_beside(8, 1, 10) and not policy.may_load_beside(8, 1, 11)
    monkeypatch.setattr(policy, "BESIDE_DEEP_WIDE", 4)
    monkeypatch.setattr(policy, "BESIDE_BUSY", 0)
    assert not policy.may_load_beside(8, 1, 9)


def test_twin_stencil_two_eight_thread_workers_idle_less(monkeypatch):
    """The 6 x 6 block stencil on 2 x 8 with a 10 ms overrun per task, over three namings x
    two seeds: loads held back while a block's slices drained left the threads idle a
    round trip (bench/ab_twin.py, 60 runs: 20 over 1.05x queuing's time); with the deeper
    wait the makespan summed is lower, and no run more over queuing's peak (8 halo rows
    allowed) than without."""
    pytest.importorskip("distributed")
    from test_spread_cap import stencil_over_queuing

    span, over = stencil_over_queuing(monkeypatch, "BESIDE_DEEP_WIDE", 2, 8, values=(0, 4))
    assert span[4] < span[0], span
    assert over[4] <= over[0], over
