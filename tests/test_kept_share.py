"""policy.KEPT_SHARE (anom52). The twin's anomaly (build(), 190 MB chunks, one time step per
chunk: each chunk-mean as large as its load, so not reduced_enough) keeps every load until its
store, after the whole mean: a worker's count of loads is its peak and its stores' rounds.
Joining their partners whatever they hold, the loads went 7 / 5 on 2 x 2 at 12 steps (a 4th
round of stores: 1.19x queuing's time on seed 0) and 8 / 8 / 4 / 4 on 4 x 4 at 24 steps
(1.125x its peak on seed 0); past the even share they go to a worker holding fewer."""
from __future__ import annotations

import pytest

from tidegate import policy
from tidegate.policy import kept_share_on, past_kept_share
from tidegate.sim import simulate
from tidegate.sim.workloads import build


def test_past_the_even_share_a_worker_holding_fewer_takes_it():
    # 12 loads on 2 workers: a share of 6
    assert past_kept_share(6, 5, 12, 2)
    assert not past_kept_share(5, 4, 12, 2)  # the partners' worker under its share
    assert not past_kept_share(6, 6, 12, 2)  # nobody holds fewer
    assert not past_kept_share(6, 0, 12, 1)  # one worker


def test_asked_on_whole_group_threads_or_two_workers(monkeypatch):
    monkeypatch.setattr(policy, "KEPT_SHARE", 3)
    assert kept_share_on(2, 2) and kept_share_on(4, 4) and kept_share_on(4, 8)
    assert not kept_share_on(4, 20) and not kept_share_on(4, 100)  # peaks 0.80 -> 0.91x ...
    assert not kept_share_on(2, 4) and not kept_share_on(2, 8)  # 24 4x2, 48 8x2's peaks
    assert kept_share_on(4, 4, 2)
    monkeypatch.setattr(policy, "KEPT_SHARE", 1)
    assert kept_share_on(4, 4, 1) and not kept_share_on(4, 4, 2)
    monkeypatch.setattr(policy, "KEPT_SHARE", 0)
    assert not kept_share_on(2, 2)


def _anomaly(steps: int, workers: int, threads: int, seed: int = 0):
    model = build("anomaly", steps, 190e6, store=True).model()
    out = []
    for p in ("queue", "tidegate"):
        (r,) = simulate(model, workers=workers, threads_per_worker=threads, seed=seed,
                        policy=[p], record_memory=False, processes=1)
        out.append(r)
    return out


def test_twelve_steps_on_two_workers_split_the_last_group(monkeypatch):
    monkeypatch.setattr(policy, "KEPT_SHARE", 3)
    q, t = _anomaly(12, 2, 2)
    assert t.makespan <= 1.05 * q.makespan, (t.makespan, q.makespan)
    assert max(t.peak_memory_per_worker) <= max(q.peak_memory_per_worker)
    monkeypatch.setattr(policy, "KEPT_SHARE", 0)  # 7 / 5 loads: a 4th round of stores
    q, t = _anomaly(12, 2, 2)
    assert t.makespan > 1.15 * q.makespan
    assert max(t.peak_memory_per_worker) > 1.05 * max(q.peak_memory_per_worker)


@pytest.mark.parametrize("bits", [3, 1])
def test_twenty_four_steps_on_four_by_four_peak_as_queuing(monkeypatch, bits):
    monkeypatch.setattr(policy, "KEPT_SHARE", bits)
    q, t = _anomaly(24, 4, 4)
    ratio = max(t.peak_memory_per_worker) / max(q.peak_memory_per_worker)
    assert t.makespan <= 1.05 * q.makespan
    if bits == 3:  # bit 2: the first wave's loads past a full count wait too
        assert ratio <= 1.0, ratio
    else:  # bit 1 alone: 2 of them joined their partners before any chunk-mean returned
        assert ratio > 1.05, ratio
    monkeypatch.setattr(policy, "KEPT_SHARE", 0)  # 8 / 8 / 4 / 4 loads
    q, t = _anomaly(24, 4, 4)
    assert max(t.peak_memory_per_worker) > 1.1 * max(q.peak_memory_per_worker)
