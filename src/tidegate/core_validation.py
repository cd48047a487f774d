"""The thread runtime's core checked: every invariant a task's state implies
(``validate_task``, per task an event touched, with ``Scheduler(validate=True)``), every
count and book swept at the run's end (``validate_state``), and a deadlock named.

A mixin of :class:`tidegate.core.Scheduler` (methods only; its state is set in
``Scheduler.__init__``): it reads, never changes.
"""

from __future__ import annotations

from .core_states import (
    DROPPED, ERRED, MEMORY, PROCESSING, READY, RELEASED, SPILLED, STATE_NAMES, WAITING, State,
)  # fmt: skip


class Validation:
    """Scheduler's invariants."""

    def _validate_touched(self) -> None:
        touched, self._touched = self._touched, []
        for i in set(touched):
            self.validate_task(i)
        for w, worker in enumerate(self.workers):
            assert 0 <= worker.processing <= worker.threads, (w, worker.processing)
            # The cap holds except for the one root an idle worker may always start.
            assert worker.roots_processing <= max(self.caps[w], 1), (w, worker.roots_processing)
            assert worker.held >= 0 and worker.spilled >= 0 and worker.roots_untouched >= 0
        self.books.validate()
        if self.limits:
            self.limits.validate()
        if self.done or (self.n_running == 0 and (self.failed is not None or self.stopped)):
            self.validate_state()  # the run is over: one full sweep
        elif self.failed is None and not self.stopped:
            assert self.n_running, self._deadlock()

    def _deadlock(self) -> str:
        ready = [self.graph.keys[i] for _, i in (self._ready + self._ready_roots)[:5]]
        ready += [self.graph.keys[i] for i in self.limits.held()[:5]]
        return f"work remains but nothing runs or can run; ready: {ready}"

    def validate_task(self, i: int) -> None:
        """Assert everything about task i that its state implies; O(its edges)."""
        g, state = self.graph, self.state
        s = state[i]
        key = g.keys[i]

        def fail(msg):
            return f"{key!r} ({STATE_NAMES[s]}): {msg}; story: {self.story(i)[-10:]}"

        deps = self._dependencies(i)
        if s in (READY, PROCESSING):
            for d in deps:
                assert state[d] in (MEMORY, SPILLED) or (s == PROCESSING and state[d] == MEMORY), (
                    fail(f"input {g.keys[d]!r} is {STATE_NAMES[state[d]]}")
                )
            if s == PROCESSING:
                assert all(state[d] == MEMORY for d in deps), fail("an input is not in memory")
                assert self.books.processing_on(i) == self.where[i], fail("books")
        if s == WAITING:
            assert self.waiting_on[i] == sum(state[d] not in (MEMORY, SPILLED) for d in deps), (
                fail("waiting count")
            )
            assert self._dropped_in.get(i, 0) == sum(d in self._returning for d in deps), (
                fail("dropped inputs")
            )
        if s == DROPPED:
            assert i in self._returning and i not in self._in_memory[self.where[i]], fail("drop")
            assert not self._ndeps[i] or state[deps[0]] == DROPPED or (
                self.views[i] and state[deps[0]] in (MEMORY, SPILLED)), fail("its root is back")
            assert not any(state[d] in (READY, PROCESSING) for d in self._dependents(i)), (
                fail("dropped while needed now")
            )
        if s == MEMORY:
            assert i in self._in_memory[self.where[i]], fail("not among in-memory results")
        if s == SPILLED:
            assert i not in self._in_memory[self.where[i]], fail("spilled but in memory")
            assert all(state[d] != PROCESSING for d in self._dependents(i)), fail("input spilled")
        if s in (MEMORY, SPILLED):
            # (A dropped dependent of a held result is a view of it, to be made again.)
            pending = sum(state[d] in (WAITING, READY, PROCESSING, DROPPED)
                          for d in self._dependents(i))
            assert pending == self.needed_by[i] or self.failed is not None, fail("needed_by")
            assert pending or self._output[i] or self.failed is not None, fail("held but unused")
        if s == RELEASED:
            assert not self._output[i], fail("an output was released")
            assert all(
                state[d] in (MEMORY, SPILLED, RELEASED, ERRED) for d in self._dependents(i)
            ), fail("released while needed")

    def validate_state(self) -> None:
        """Every invariant, sweeping all tasks: O(tasks + edges)."""
        n = len(self.graph)
        W = len(self.workers)
        held, spilled, running, roots = [0] * W, [0] * W, [0] * W, [0] * W
        in_memory = [0] * W
        counts = [0] * len(State)
        for i in range(n):
            s = self.state[i]
            counts[s] += 1
            self.validate_task(i)
            w = self.where[i]
            if s == MEMORY:
                held[w] += self.nbytes[i]
                in_memory[w] += 1
            elif s == SPILLED:
                spilled[w] += self.nbytes[i]
            elif s == PROCESSING:
                running[w] += 1
                roots[w] += bool(self._root[i])
        assert counts[READY] == self.n_ready == (
            len(self._ready) + len(self._ready_roots) + self.limits.n_held
        )
        assert counts[PROCESSING] == self.n_running
        ready_in = [0] * len(self.ready_in)
        for i in range(n):
            if self.state[i] == READY:
                ready_in[self._group[i]] += 1
        assert ready_in == self.ready_in, (ready_in, self.ready_in)
        assert counts[WAITING] == self.n_waiting
        assert counts[MEMORY] + counts[SPILLED] + counts[RELEASED] == self.n_finished
        holders: dict[int, set] = {}
        for i in range(n):
            if self.state[i] == MEMORY and self.buffer[i]:
                holders.setdefault(self.buffer[i], set()).add(i)
        assert holders == self._holders, (holders, self._holders)
        for w, worker in enumerate(self.workers):
            assert worker.held == held[w], (worker.held, held[w])
            assert worker.spilled == spilled[w], (worker.spilled, spilled[w])
            assert len(self._in_memory[w]) == in_memory[w]
            assert worker.processing == running[w] <= worker.threads
            assert worker.roots_processing == roots[w]
            assert roots[w] <= max(self.caps[w], 1)
        self.books.validate()
        limit_counts = dict.fromkeys(self.limits.caps, 0)
        for i, names in self._limited.items():
            if self.state[i] == PROCESSING:
                for name in names:
                    limit_counts[name] += 1
        for name, cap in self.limits.caps.items():
            assert limit_counts[name] == self.limits.count[name] <= cap, (
                f"concurrency limit {name!r} exceeded: {limit_counts[name]} > {cap}"
            )
        for i in self.limits.held():
            assert self.state[i] == READY, f"{self.graph.keys[i]!r} withheld by a limit, not ready"
        self.limits.validate()
        if self.failed is None and not self.stopped and not self.done:
            assert self.n_running, self._deadlock()

