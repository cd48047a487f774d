"""policy.JOIN_SPREAD (rca48): a two-array join whose roots are no more than the workers
(the twin's rechunk-add of 4 steps: each side's 4 loads of 190 MB, rechunked in halves, u's
merge added to v's) opens a load a worker, as queuing does; co-assigned, each side's pair of
loads sat on one worker (760 MB on four workers, four idle: 1.6x queuing's peak)."""
from __future__ import annotations

import pytest

from tidegate import policy
from tidegate.policy import spreads_join


def test_a_join_spreads_only_where_its_roots_fit_the_workers(monkeypatch):
    monkeypatch.setattr(policy, "JOIN_SPREAD", 1)
    assert spreads_join(8, 8) and spreads_join(2, 20)
    assert not spreads_join(9, 8)  # (the seed's 24 loads on 8 workers: stays co-assigned)
    monkeypatch.setattr(policy, "JOIN_SPREAD", 0)
    assert not spreads_join(8, 8)


def _runs(monkeypatch, steps, workers, threads, spread):
    """[(tidegate's peak, queuing's peak, tidegate's makespan, queuing's, bytes moved by
    tidegate, by queuing)] per twin seed, JOIN_SPREAD ``spread``."""
    from tidegate.sim import simulate
    from tidegate.sim.workloads import build

    monkeypatch.setattr(policy, "JOIN_SPREAD", spread)
    model = build("rechunk-add", steps, 190e6, store=True).model()
    out = []
    for seed in (0, 1):
        q, t = simulate(model, workers=workers, threads_per_worker=threads, seed=seed,
                        policy=["queue", "tidegate"], processes=1)
        out.append((max(t.peak_memory_per_worker), max(q.peak_memory_per_worker),
                    t.makespan, q.makespan, t.bytes_transferred, q.bytes_transferred))
    return out


@pytest.mark.parametrize("threads", [4, 1])
def test_twin_rechunk_add_of_few_loads_spreads_them(monkeypatch, threads):
    pytest.importorskip("distributed")
    for peak, q_peak, t, q_t, moved, q_moved in _runs(monkeypatch, 4, 8, threads, 1):
        # (queuing moves the same halves and merges; a handle's 56 bytes more)
        assert peak <= q_peak and t <= 1.01 * q_t and moved <= 1.0001 * q_moved
    for peak, q_peak, *_ in _runs(monkeypatch, 4, 8, threads, 0):
        assert peak >= 1.4 * q_peak  # (co-assigned: a side's pair on one worker)


def test_twin_more_loads_than_workers_stay_co_assigned(monkeypatch):
    pytest.importorskip("distributed")
    assert _runs(monkeypatch, 4, 4, 4, 1) == _runs(monkeypatch, 4, 4, 4, 0)
