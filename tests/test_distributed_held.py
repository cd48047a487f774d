"""Readers held for a copy of a shared input (plugin held.Held, Broadcast.blocker).

Held readers are woken whenever any copy starts, lands or is dropped, and nearly all stay
held. The plugin answers those looks without gate (Broadcast.blocker) and without moving
the readers between lines; the schedule must be exactly the one gate gives.
"""

from __future__ import annotations

from types import SimpleNamespace

from conftest import twin_vorticity_trace
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tidegate.distributed import broadcast
from tidegate.distributed import held as held_mod
from tidegate.distributed.held import Held as _Held


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


def _parked(line) -> set:
    """Keys of the parked readers (up to the mark, or parked beyond it)."""
    mark = line._mark
    return {e[2].key for e in line._list
            if (mark is not None and e <= mark) or e[2].key in line._ahead}


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_skip_in_bulk_holds_the_readers_one_look_at_a_time_would(data):
    """Held.skip against the plain scan it replaces: the woken readers before the first
    on a covered worker (or the bound, or the window's end) are held again, counted,
    stamped at the generation, and the parked ones stay parked."""
    n = data.draw(st.integers(1, 30))
    prios = data.draw(st.lists(st.integers(0, 8), min_size=n, max_size=n))
    addrs = data.draw(st.lists(st.sampled_from("wxyz"), min_size=n, max_size=n))
    tasks = [_task(f"t{i}", p) for i, p in enumerate(prios)]
    ops = data.draw(st.lists(st.tuples(st.sampled_from(["park", "look", "wake"]),
                                       st.integers(0, n - 1)), max_size=40))
    covered = set(data.draw(st.lists(st.sampled_from("wxyz"), max_size=3)))
    bound = data.draw(st.one_of(st.none(), st.integers(0, 9)))
    limit = data.draw(st.integers(1, 40))
    lines = _Held(), _Held()
    for line in lines:
        for t, a in zip(tasks, addrs):
            line.park(t, a)
        for op, i in ops:  # the same history for both
            if op == "park":
                line.park(tasks[i], addrs[i])
            elif op == "wake":
                line.wake()
            else:
                c = line.first()
                if c is not None:
                    line.repark_first(c)
    bulk, plain = lines
    got = bulk.skip(covered, None if bound is None else (bound,), limit, generation=7)
    want, stamped = 0, set()
    for c in plain.woken():  # one look at a time
        if (bound is not None and c.priority >= (bound,)) or want >= limit \
                or plain._meta[c.key][0] in covered:  # fmt: skip
            break
        plain.repark_first(c)
        stamped.add(c.key)
        want += 1
    assert got == want
    assert _parked(bulk) == _parked(plain)
    assert {k for k, e in bulk._entry.items() if bulk.stamped(e, 7)} == stamped
    assert not any(bulk.stamped(e, 8) for e in bulk._entry.values())
    held = {t.key: ("addr", 3) for t in tasks}  # leaving the line writes its bulk stamp
    for k in list(bulk._entry):
        bulk.discard_key(k, held, 7)
    assert {k for k, v in held.items() if v[1] == 7} == stamped
    assert not bulk._on and not bulk._sigs and not bulk._list


def test_held_readers_on_one_shared_input_are_passed_over_in_bulk(monkeypatch):
    """Twin vorticity: the stores wait for the same three grids; most looks at held
    readers are bulk ones (Held.skip), and the schedule is the plain scan's."""
    skipped = []
    skip = held_mod.Held.skip

    def counted(self, *args, **kwargs):
        n = skip(self, *args, **kwargs)
        skipped.append(n)
        return n

    monkeypatch.setattr(held_mod.Held, "skip", counted)
    trace = twin_vorticity_trace()
    monkeypatch.undo()
    monkeypatch.setattr(held_mod.Held, "skip", lambda self, *a, **k: 0)  # never in bulk
    plain = twin_vorticity_trace()
    assert trace == plain
    assert sum(skipped) > 0
