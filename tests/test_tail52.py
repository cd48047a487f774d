"""tail52: in the tail a root without partners offered by the wide fan-in way goes only to a
worker with a thread free (policy.TAIL_THREAD_FREE; docs/policy.md)."""

from __future__ import annotations

import pytest

from tidegate import policy
from tidegate.sim import simulate
from tidegate.sim.workloads import build


@pytest.mark.parametrize("steps, shape", [(40, (4, 4)), (20, (8, 4))])
def test_twin_weighted_tail_goes_to_free_threads(monkeypatch, steps, shape):
    """Twin weighted (store form, 190 MB): every store reads the two broadcast grids and
    meets the others only in the finalize (a wide fan-in), so each is offered to any open
    worker up to its cap (ceil(1.1 x 4) = 5). In the last round the first workers to free
    threads took 4 stores each, one queued behind a running store, and ran a round more
    than the rest (4 x 4 at 40 steps 1.173x, 8 x 4 at 20 steps 1.447x queuing's time);
    with the tail's stores on free threads only, 0.907x and 0.900x."""
    monkeypatch.setattr(policy, "TAIL_THREAD_FREE", 1)
    model = build("weighted", steps, 190e6, store=True).model()
    workers, threads = shape
    queue, ours = simulate(model, workers=workers, threads_per_worker=threads, seed=0,
                           policy=["queue", "tidegate"], record_memory=False, processes=1)
    assert ours.makespan <= queue.makespan, (ours.makespan, queue.makespan)  # (off: 1.17-1.50x)
    assert max(ours.peak_memory_per_worker) <= 1.001 * max(queue.peak_memory_per_worker)
    assert ours.bytes_transferred <= queue.bytes_transferred


def test_tail_wants_thread_only_in_the_tail(monkeypatch):
    monkeypatch.setattr(policy, "TAIL_THREAD_FREE", 1)
    assert policy.tail_wants_thread(80, 80) and policy.tail_wants_thread(1, 80)
    assert not policy.tail_wants_thread(81, 80) and not policy.tail_wants_thread(0, 80)
    monkeypatch.setattr(policy, "TAIL_THREAD_FREE", 0)
    assert not policy.tail_wants_thread(1, 80)


def test_a_root_held_for_a_free_thread_is_asked_when_one_frees(monkeypatch):
    """A fan-in of 100 equal loads (delayed(sum)'s shape) on 4 x 4: in the tail a load the
    rule refused (no thread free) was recorded as blocked until a worker's root count
    opened, which a thread freeing does not do (the loads stay held for the sum), so it
    waited for the plugin's timer: 1.092x queuing's time (rev52m). A thread free in the
    tail moves the epoch now: 1.009x (the rule off: 1.000x)."""
    monkeypatch.setattr(policy, "TAIL_THREAD_FREE", 1)
    n = 100
    graph = {("load", i): (lambda: None,) for i in range(n)}
    graph["total"] = (sum, [("load", i) for i in range(n)])
    queue, ours = simulate(graph, keys=["total"], workers=4, threads_per_worker=4, seed=0,
                           latency=0.001, durations=lambda k: 0.01 if k == "total" else 0.02,
                           sizes=lambda k: 8 if k == "total" else 1e6,
                           policy=["queue", "tidegate"], record_memory=False, processes=1)
    assert ours.makespan <= 1.03 * queue.makespan, (ours.makespan, queue.makespan)
