"""policy.AWAIT_HELD (lack53). The twin's anomaly (build(), 190 MB chunks, the today form at
1 GB/s) keeps every load until its store, after the whole mean. The combine view
(policy.awaits_combine) kept a worker that is the place of the next level's combine from
opening a new group of loads until it ran; late in a long graph on four workers each of them
awaited one, idling 3 of 4 threads (4 x 4, 400 steps: 1.07x queuing's time). Past AWAIT_HELD
largest roots held, with a thread free and no more than the mean held, the group opens."""
from __future__ import annotations

from tidegate import policy
from tidegate.policy import awaits_held_on, opens_past_combine
from tidegate.sim import simulate
from tidegate.sim.workloads import build


def test_opens_past_the_combine_late_with_a_thread_free(monkeypatch):
    monkeypatch.setattr(policy, "AWAIT_HELD", 30)
    assert opens_past_combine(30e9, 1e9, 31e9, 3, 4)
    assert not opens_past_combine(29e9, 1e9, 31e9, 3, 4)  # early: the group is a big part
    assert not opens_past_combine(32e9, 1e9, 31e9, 3, 4)  # holds more than the mean
    assert not opens_past_combine(30e9, 1e9, 31e9, 4, 4)  # no thread free
    assert not opens_past_combine(30e9, 0.0, 31e9, 3, 4)  # no root size known


def test_asked_on_three_or_four_workers_of_four_threads(monkeypatch):
    monkeypatch.setattr(policy, "AWAIT_HELD", 30)
    assert awaits_held_on(4, 4) and awaits_held_on(3, 4) and awaits_held_on(4, 8)
    assert not awaits_held_on(2, 4)  # 200 steps 2 x 4: peak 1.009 -> 1.026x
    assert not awaits_held_on(4, 2)  # 200 steps 4 x 2: peak 1.000 -> 1.016x
    assert not awaits_held_on(8, 4)  # 400 steps 8 x 4: peak 0.823 -> 0.830x
    monkeypatch.setattr(policy, "AWAIT_HELD", 0)
    assert not awaits_held_on(4, 4)


def _anomaly(steps: int, workers: int, threads: int):
    model = build("anomaly", steps, 190e6, store=False).model()
    (r,) = simulate(model, workers=workers, threads_per_worker=threads, seed=0,
                    policy=["tidegate"], record_memory=False, processes=1, bandwidth=1e9)
    return r


def test_four_by_four_four_hundred_steps_opens_groups_late(monkeypatch):
    """Against itself off (the lowest distributed's queuing differs): 4 x 4, 400 steps,
    seed 0: 1.076x -> 1.029x queuing's time (0.956x itself off), peak 1.050 -> 0.967x."""
    monkeypatch.setattr(policy, "AWAIT_HELD", 30)
    on = _anomaly(400, 4, 4)
    monkeypatch.setattr(policy, "AWAIT_HELD", 0)
    off = _anomaly(400, 4, 4)
    assert on.makespan <= 0.97 * off.makespan, (on.makespan, off.makespan)
    assert max(on.peak_memory_per_worker) <= max(off.peak_memory_per_worker)
