"""Readers held for a copy of a shared input (plugin hooks._Held, Broadcast.blocker).

Held readers are woken whenever any copy starts, lands or is dropped, and nearly all stay
held. The plugin answers those looks without gate (Broadcast.blocker) and without moving
the readers between lines; the schedule must be exactly the one gate gives.
"""

from __future__ import annotations

from types import SimpleNamespace

from tidegate.distributed import broadcast
from tidegate.distributed.hooks import _Held

from conftest import twin_vorticity_trace


def _task(key, priority):
    return SimpleNamespace(key=key, priority=(priority,))


def test_held_line_wakes_all_at_once_and_keeps_parked_ones_parked():
    a, b, c, d = (_task(k, p) for k, p in (("a", 1), ("b", 2), ("c", 3), ("d", 4)))
    line = _Held()
    for t in (c, a, b):
        line.park(t)
    assert len(line) == 3 and line.first() is None and line.any_parked()
    line.wake()
    assert line.first() is a
    line.repark_first(a)  # looked at, held again
    assert line.first() is b
    line.park(d)  # parked after the wake, beyond the mark: not woken
    line.repark_first(b)
    assert line.first() is c
    line.repark_first(c)
    assert line.first() is None  # d stays parked until the next wake
    line.discard(b)
    line.wake()
    seen = []
    for t in line.woken():
        seen.append(t.key)
        line.repark_first(t)
    assert seen == ["a", "c", "d"] and line.any_parked()
    line.discard_key("a")
    assert a not in line and c in line and len(line) == 2


def _run(monkeypatch, exact_only: bool):
    calls = []
    gate = broadcast.Broadcast.gate

    def counted(self, *args, **kwargs):
        calls.append(1)
        return gate(self, *args, **kwargs)

    monkeypatch.setattr(broadcast.Broadcast, "gate", counted)
    if exact_only:  # every look at a held reader goes through gate, as before _Held
        monkeypatch.setattr(broadcast.Broadcast, "blocker", lambda self, s: None)
    trace = twin_vorticity_trace()
    monkeypatch.undo()
    return len(calls), trace, len(trace[0])


def test_held_readers_are_answered_without_gate_and_schedule_the_same(monkeypatch):
    fast, trace, tasks = _run(monkeypatch, exact_only=False)
    slow, slow_trace, _ = _run(monkeypatch, exact_only=True)
    assert trace == slow_trace  # the same starts, workers, times and transfers
    # Before: 1,739 gate calls for 609 tasks (each copy woke ~70 readers, each asked gate).
    assert fast < tasks < slow
