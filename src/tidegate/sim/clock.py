"""The twin's virtual clock: a heap of callbacks, and the server bits dask expects.

Nothing here sleeps or reads wall time. Events at the same instant run in the order they
were scheduled, so a run is a pure function of its inputs.
"""

from __future__ import annotations

from heapq import heappop, heappush
from collections.abc import Callable


class Stalled(RuntimeError):
    """Work remains but nothing will ever happen again except timers."""


class Clock:
    """Events in order of time, then of scheduling. The heap holds each instant once (a
    float compares in one step; a (time, sequence) tuple took two, and popping was 7% of a
    1M-task run on 1,000 workers); the events at an instant wait in a list, first
    scheduled first. Nearly every instant has one event (100k tasks on 100 workers: 1.1
    events per instant), so an instant's list is a plain list, read by index while events
    scheduled for that same instant join its end.

    ``marked_only``: ``run`` asks ``done()`` only after events scheduled with
    :meth:`call_at_marked` (and once at the start), for a caller that knows no other event
    can finish the run (the twin: only scheduler work changes the scheduler's tasks). By
    default it asks after every event."""

    def __init__(self, marked_only: bool = False) -> None:
        self.now = 0.0
        self._times: list = []  # heap of the instants that have events
        # instant -> list of (timer, fn, args); timer: True, False, or None (not a timer,
        # and ``done()`` is asked after it: call_at_marked)
        self._at: dict = {}
        self._pending = 0  # events waiting that are not timers
        self._every = not marked_only

    def call_at(self, when: float, fn: Callable, *args, timer: bool = False) -> None:
        if not timer:
            self._pending += 1
        if when < self.now:
            when = self.now
        q = self._at.get(when)
        if q is None:
            self._at[when] = [(timer, fn, args)]
            heappush(self._times, when)
        else:
            q.append((timer, fn, args))

    def call_later(self, delay: float, fn: Callable, *args, timer: bool = False) -> None:
        self.call_at(self.now + delay, fn, *args, timer=timer)

    def call_at_marked(self, when: float, fn: Callable, *args) -> None:
        """``call_at``, for an event after which ``run`` asks ``done()`` (see
        ``marked_only``)."""
        self.call_at(when, fn, *args, timer=None)

    def run(self, done: Callable[[], bool], progress: Callable[[], int],
            idle_ticks: int = 64) -> None:
        """Run events until ``done()``. Raise :class:`Stalled` when only timers are left
        and they have fired ``idle_ticks`` times in a row while ``progress()`` stayed the
        same. (A long task is a pending event: timers may tick through it.)"""
        times, at = self._times, self._at
        idle, last = 0, None
        every, check = self._every, True
        while times:
            if check:
                if done():
                    return
                check = every
            when = heappop(times)
            q = at[when]  # stays in ``at`` while it runs: events for this instant join it
            self.now = when
            i = 0
            while True:
                timer, fn, args = q[i]
                i += 1
                if not timer:
                    self._pending -= 1
                elif not self._pending:
                    p = progress()
                    idle = idle + 1 if p == last else 0
                    last = p
                    if idle > idle_ticks:
                        self._unrun(when, q, i)
                        raise Stalled(f"no progress since t={when:.3f}s: only timers fire")
                try:
                    fn(*args)
                except BaseException:  # the rest of this instant stays runnable
                    self._unrun(when, q, i)
                    raise
                if timer is None:
                    check = True
                if i == len(q):
                    break
                if check:
                    if done():
                        self._unrun(when, q, i)
                        return
                    check = every
            del at[when]
        if not done():
            raise Stalled(f"no events left at t={self.now:.3f}s and work remains")

    def _unrun(self, when: float, q: list, ran: int) -> None:
        """Leave the events of ``when`` not run yet waiting, as if just scheduled."""
        del q[:ran]
        if q:
            heappush(self._times, when)
        else:
            del self._at[when]


class VirtualLoop:
    """Stands in for ``Scheduler.loop``: callbacks go on the virtual clock."""

    def __init__(self, clock: Clock, submit: Callable) -> None:
        self._clock = clock
        self._submit = submit  # runs a callback as scheduler work (it costs CPU there)

    def time(self) -> float:
        return self._clock.now

    def add_callback(self, fn: Callable, *args, **kwargs) -> None:
        self._submit(lambda: fn(*args, **kwargs))

    def call_later(self, delay: float, fn: Callable, *args, **kwargs) -> None:
        self._clock.call_later(delay, self._submit, lambda: fn(*args, **kwargs))


class VirtualTimers(dict):
    """Stands in for ``Scheduler.periodic_callbacks``. A tornado ``PeriodicCallback`` put
    here is re-wired before anyone calls its ``start()``: it fires on the virtual clock
    (as scheduler work) and never touches a real IOLoop."""

    def __init__(self, clock: Clock, submit: Callable) -> None:
        super().__init__()
        self._clock = clock
        self._submit = submit

    def __setitem__(self, name, pc) -> None:
        self.add(name, pc.callback, pc.callback_time / 1000, pc)
        super().__setitem__(name, pc)

    def add(self, name: str, callback: Callable, interval: float, handle=None) -> None:
        """Fire ``callback`` every ``interval`` virtual seconds while started."""
        state = {"running": False}
        clock, submit = self._clock, self._submit

        def tick():
            if state["running"]:
                submit(callback)
                clock.call_later(interval, tick, timer=True)

        def start():
            if not state["running"]:
                state["running"] = True
                clock.call_later(interval, tick, timer=True)

        def stop():
            state["running"] = False

        if handle is None:
            handle = _Handle()
            super().__setitem__(name, handle)
        handle.start, handle.stop = start, stop
        handle.is_running = lambda: state["running"]


class _Handle:
    start: Callable
    stop: Callable
