"""Sans-I/O scheduler state machine: events in, actions out. No threads, no clock, no I/O.

Every task moves through::

    waiting --inputs held--> ready --chosen--> processing --Finished--> memory --unused--> released
                                                          --Failed---> erred

Workers are ``threads`` slots each; a worker is given a task only for a free slot, so
"processing" and "running" coincide here and priority is decided by the scheduler, not by
a worker queue. Decisions (what is a root, may it start) come from policy.py.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass

import numpy as np
from dask.utils import format_bytes

from .graph import TaskGraph
from .policy import (
    Policy,
    estimate_output,
    largest_footprint,
    may_admit_root,
    spill_candidates,
)

WAITING, READY, PROCESSING, MEMORY, RELEASED, ERRED = range(6)
STATE_NAMES = ("waiting", "ready", "processing", "memory", "released", "erred")


# -- events (in) ------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Finished:
    task: int
    nbytes: int


@dataclass(frozen=True, slots=True)
class Failed:
    task: int


# -- actions (out) ----------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Run:
    task: int
    worker: int


@dataclass(frozen=True, slots=True)
class Release:
    task: int
    worker: int


@dataclass(frozen=True, slots=True)
class Spill:
    """Move a held result out of memory (to disk); the core counts it out of held bytes."""

    task: int
    worker: int


@dataclass(frozen=True, slots=True)
class Load:
    """Bring a spilled result back into memory; always emitted before the Run needing it."""

    task: int
    worker: int


@dataclass(slots=True)
class Worker:
    threads: int
    budget: float
    running: int = 0
    roots_running: int = 0
    roots_untouched: int = 0  # held root outputs no consumer has used yet
    held: int = 0  # measured bytes of results in memory here
    spilled: int = 0  # measured bytes of results held on disk
    estimated: float = 0.0  # estimated outputs of running tasks
    peak_held: float = 0.0

    @property
    def held_bytes(self) -> float:
        """DESIGN.md's held bytes: measured results plus running tasks' estimates."""
        return self.held + self.estimated


class Scheduler:
    """One compute's scheduling state. ``start()`` then ``handle(event)``; both return actions."""

    def __init__(
        self,
        graph: TaskGraph,
        workers: list[tuple[int, float]],
        policy: Policy | None = None,
        validate: bool = False,
    ):
        if not workers:
            raise ValueError("at least one worker is needed")
        self.graph = graph
        self.policy = policy or Policy()
        self.validate = validate
        self.workers = [Worker(int(t), float(b)) for t, b in workers]
        for w in self.workers:
            if w.threads < 1:
                raise ValueError(f"a worker needs at least one thread, got {w.threads}")
            if not w.budget > 0:
                raise ValueError(f"a memory budget must be > 0 bytes, got {w.budget}")
        self.caps = [self.policy.root_cap(w.threads) for w in self.workers]
        budget = min(w.budget for w in self.workers)
        i, footprint = largest_footprint(graph.size)
        if footprint > budget:
            raise ValueError(
                f"memory_limit of {format_bytes(budget)} cannot hold task {graph.keys[i]!r}: "
                f"its chunk alone is {format_bytes(footprint)}; raise memory_limit or use "
                f"smaller chunks"
            )
        n = len(graph)
        self._dep_ptr = graph.dep_ptr.tolist()
        self._dep_idx = graph.dep_idx.tolist()
        self._dependent_ptr = graph.dependent_ptr.tolist()
        self._dependent_idx = graph.dependent_idx.tolist()
        self._priority = graph.priority.tolist()
        self._root = graph.root.tolist() if self.policy.withholds else [False] * n
        self._known_size = graph.size.tolist()
        self._group = graph.group.tolist()
        self._output = bytearray(n)
        for i in graph.outputs.tolist():
            self._output[i] = 1

        self.state = bytearray(n)  # WAITING
        self._ndeps = np.diff(graph.dep_ptr).tolist()
        self.waiting_on = list(self._ndeps)
        self._untouched = bytearray(n)  # root output held, no dependent finished yet
        self.spilled = bytearray(n)  # held on disk, not in memory
        self._in_memory: list[set[int]] = [set() for _ in self.workers]  # spill candidates
        self.needed_by = np.diff(graph.dependent_ptr).tolist()
        self.where = [-1] * n
        self.nbytes = [0] * n
        self.estimate = [0.0] * n
        self._group_max = [0.0] * len(graph.group_names)
        self._roots_max = 0.0
        # Ready tasks: non-roots by priority; roots by priority (withheld until admitted).
        self._ready: list[tuple[int, int]] = []
        self._ready_roots: list[tuple[int, int]] = []
        # Counters, readable from other threads (ints are atomic) for progress bars.
        self.n_waiting = n
        self.n_ready = 0
        self.n_running = 0
        self.n_finished = 0
        self.failed: int | None = None
        self.stopped = False  # set by cancel(): nothing new starts
        self.peak_roots_held = 0
        self.roots_held = 0
        self.bytes_spilled = 0
        self.bytes_loaded = 0

    # -- public -------------------------------------------------------------------------
    @property
    def done(self) -> bool:
        return self.n_finished == len(self.graph)

    def start(self) -> list:
        actions: list = []
        for i, deps in enumerate(self.waiting_on):
            if deps == 0:
                self._make_ready(i)
        self._fill(actions)
        self._spill_over_budget(actions)
        if self.validate:
            self.validate_state()
        return actions

    def handle(self, event) -> list:
        return self.handle_many((event,))

    def cancel(self) -> None:
        """Stop handing out work (Ctrl-C): running tasks may still report back."""
        self.stopped = True

    def handle_many(self, events) -> list:
        """Several events, one fill: cheaper for batches of completions."""
        actions: list = []
        for event in events:
            if type(event) is Finished:
                self._finished(event.task, event.nbytes, actions)
            elif type(event) is Failed:
                self._failed(event.task, actions)
            else:
                raise TypeError(f"unknown event {event!r}")
        if self.failed is None and not self.stopped:
            self._fill(actions)
            self._spill_over_budget(actions)
        if self.validate:
            self.validate_state()
        return actions

    # -- transitions --------------------------------------------------------------------
    def _make_ready(self, i: int) -> None:
        self.state[i] = READY
        self.n_waiting -= 1
        self.n_ready += 1
        if self._root[i]:
            heapq.heappush(self._ready_roots, (self._priority[i], i))
        else:
            heapq.heappush(self._ready, (self._priority[i], i))

    def _run(self, i: int, w: int, actions: list) -> None:
        worker = self.workers[w]
        for c in range(self._dep_ptr[i], self._dep_ptr[i + 1]):
            d = self._dep_idx[c]
            if self.spilled[d]:
                self._load(d, actions)
        self.state[i] = PROCESSING
        self.where[i] = w
        self.n_ready -= 1
        self.n_running += 1
        worker.running += 1
        est = self._estimate(i)
        self.estimate[i] = est
        worker.estimated += est
        if self._root[i]:
            worker.roots_running += 1
        actions.append(Run(i, w))

    def _estimate(self, i: int) -> float:
        if not self._root[i]:
            known = self._known_size[i]
            return known if known == known else 0.0
        return estimate_output(self._known_size[i], self._group_max[self._group[i]], self._roots_max)

    def _finished(self, i: int, nbytes: int, actions: list) -> None:
        if self.state[i] != PROCESSING:
            raise ValueError(f"task {self.graph.keys[i]!r} finished but was {STATE_NAMES[self.state[i]]}")
        w = self.where[i]
        worker = self.workers[w]
        self.state[i] = MEMORY
        self.n_running -= 1
        self.n_finished += 1
        worker.running -= 1
        worker.estimated -= self.estimate[i]
        self.nbytes[i] = nbytes
        worker.held += nbytes
        self._in_memory[w].add(i)
        if self._root[i]:
            worker.roots_running -= 1
            if self.needed_by[i]:
                self._untouched[i] = 1
                worker.roots_untouched += 1
            self.roots_held += 1
            if self.roots_held > self.peak_roots_held:
                self.peak_roots_held = self.roots_held
            g = self._group[i]
            if nbytes > self._group_max[g]:
                self._group_max[g] = nbytes
            if nbytes > self._roots_max:
                self._roots_max = nbytes
        if worker.held_bytes > worker.peak_held:
            worker.peak_held = worker.held_bytes
        # Inputs nobody else needs go now; then this result, if nothing needs it.
        self._done_with_inputs(i, actions)
        needed_by = self.needed_by
        if needed_by[i] == 0 and not self._output[i]:
            self._release(i, actions)
        waiting_on = self.waiting_on
        for c in range(self._dependent_ptr[i], self._dependent_ptr[i + 1]):
            d = self._dependent_idx[c]
            waiting_on[d] -= 1
            if waiting_on[d] == 0:
                self._make_ready(d)

    def _done_with_inputs(self, i: int, actions: list) -> None:
        needed_by = self.needed_by
        for c in range(self._dep_ptr[i], self._dep_ptr[i + 1]):
            d = self._dep_idx[c]
            if self._untouched[d]:
                self._untouched[d] = 0
                self.workers[self.where[d]].roots_untouched -= 1
            needed_by[d] -= 1
            if needed_by[d] == 0 and not self._output[d]:
                self._release(d, actions)

    def _release(self, i: int, actions: list) -> None:
        w = self.where[i]
        self.state[i] = RELEASED
        if self.spilled[i]:
            self.spilled[i] = 0
            self.workers[w].spilled -= self.nbytes[i]
        else:
            self.workers[w].held -= self.nbytes[i]
            self._in_memory[w].discard(i)
        if self._root[i]:
            self.roots_held -= 1
        actions.append(Release(i, w))

    def _failed(self, i: int, actions: list) -> None:
        if self.state[i] != PROCESSING:
            raise ValueError(f"task {self.graph.keys[i]!r} failed but was {STATE_NAMES[self.state[i]]}")
        worker = self.workers[self.where[i]]
        self.state[i] = ERRED
        self.n_running -= 1
        worker.running -= 1
        worker.estimated -= self.estimate[i]
        if self._root[i]:
            worker.roots_running -= 1
        self._done_with_inputs(i, actions)  # nothing will run again; free what it held
        if self.failed is None:
            self.failed = i

    # -- choice -------------------------------------------------------------------------
    def _fill(self, actions: list) -> None:
        """Give every free slot its best admissible task, in strict priority order."""
        ready, roots = self._ready, self._ready_roots
        for w, worker in enumerate(self.workers):
            cap = self.caps[w]
            while worker.running < worker.threads:
                best = ready[0][0] if ready else math.inf
                if roots and roots[0][0] < best and self._admit(w, roots[0][1], cap):
                    _, i = heapq.heappop(roots)
                elif ready:
                    _, i = heapq.heappop(ready)
                else:
                    break  # nothing ready, or only withheld roots
                self._run(i, w, actions)

    def _admit(self, w: int, i: int, cap: float) -> bool:
        """May root i start on worker w? (A root blocked by memory waits for consumers to
        free some: making room by spilling to start it early thrashes once the working set
        exceeds the budget, a write and a read per chunk to keep one more thread busy.)"""
        worker = self.workers[w]
        return may_admit_root(
            worker.roots_running,
            worker.roots_untouched,
            cap,
            self._completes_consumer(i),
            worker.held_bytes,
            self._estimate(i),
            worker.budget,
            worker.running == 0,
        )

    # -- spilling -----------------------------------------------------------------------
    def _load(self, i: int, actions: list) -> None:
        w = self.where[i]
        worker = self.workers[w]
        self.spilled[i] = 0
        worker.spilled -= self.nbytes[i]
        worker.held += self.nbytes[i]
        self._in_memory[w].add(i)
        self.bytes_loaded += self.nbytes[i]
        actions.append(Load(i, w))

    def _spill_over_budget(self, actions: list) -> None:
        """Measured results over budget: spill those whose next use lies furthest ahead.
        (Running tasks' estimates only gate admission: their outputs may be consumed at once.)"""
        for w, worker in enumerate(self.workers):
            excess = worker.held - worker.budget
            if excess > 0:
                self._spill(w, excess, actions)

    def _spill(self, w: int, amount: float, actions: list) -> None:
        """Spill at least ``amount`` bytes, furthest next use first."""
        candidates = spill_candidates(
            self._in_memory[w], self.state, self.nbytes, self._priority,
            self._dependent_ptr, self._dependent_idx,
        )  # fmt: skip
        freed = 0.0
        worker = self.workers[w]
        for next_use, i in candidates:
            if freed >= amount:
                break
            self.spilled[i] = 1
            self._in_memory[w].discard(i)
            worker.held -= self.nbytes[i]
            worker.spilled += self.nbytes[i]
            self.bytes_spilled += self.nbytes[i]
            freed += self.nbytes[i]
            actions.append(Spill(i, w))

    def _completes_consumer(self, i: int) -> bool:
        """Does root i feed a task that already holds some of its inputs?"""
        waiting_on, ndeps = self.waiting_on, self._ndeps
        for c in range(self._dependent_ptr[i], self._dependent_ptr[i + 1]):
            d = self._dependent_idx[c]
            if waiting_on[d] < ndeps[d]:
                return True
        return False

    # -- invariants ---------------------------------------------------------------------
    def validate_state(self) -> None:
        g = self.graph
        n = len(g)
        held = [0] * len(self.workers)
        running = [0] * len(self.workers)
        roots = [0] * len(self.workers)
        untouched = [0] * len(self.workers)
        spilled = [0] * len(self.workers)
        counts = [0] * 6
        for i in range(n):
            s = self.state[i]
            counts[s] += 1
            deps = g.dependencies(i)
            if s in (READY, PROCESSING):
                for d in deps:
                    assert self.state[d] == MEMORY, (
                        f"{g.keys[i]!r} is {STATE_NAMES[s]} but input {g.keys[d]!r} is "
                        f"{STATE_NAMES[self.state[d]]}"
                    )
            if s == MEMORY:
                untouched[self.where[i]] += self._untouched[i]  # on disk or not
            if s == MEMORY and self.spilled[i]:
                spilled[self.where[i]] += self.nbytes[i]
                assert all(self.state[d] != PROCESSING for d in g.dependents(i)), "input spilled"
            elif s == MEMORY:
                assert i in self._in_memory[self.where[i]]
                held[self.where[i]] += self.nbytes[i]
                pending = [d for d in g.dependents(i) if self.state[d] in (WAITING, READY, PROCESSING)]
                assert pending or self._output[i], f"{g.keys[i]!r} held but unused"
            if s == RELEASED:
                assert not self._output[i]
                assert all(self.state[d] in (MEMORY, RELEASED, ERRED) for d in g.dependents(i))
            if s == PROCESSING:
                running[self.where[i]] += 1
                roots[self.where[i]] += bool(self._root[i])
        assert counts[READY] == self.n_ready and counts[PROCESSING] == self.n_running
        assert counts[WAITING] == self.n_waiting
        assert counts[MEMORY] + counts[RELEASED] == self.n_finished
        for w, worker in enumerate(self.workers):
            assert worker.held == held[w], (worker.held, held[w])
            assert worker.spilled == spilled[w], (worker.spilled, spilled[w])
            assert len(self._in_memory[w]) == sum(
                1 for i in range(n) if self.where[i] == w and self.state[i] == MEMORY
                and not self.spilled[i]
            )
            assert worker.running == running[w] <= worker.threads
            assert worker.roots_running == roots[w]
            assert worker.roots_untouched == untouched[w]
            # The cap holds except for the one root an idle worker may always start.
            assert roots[w] <= max(self.caps[w], 1)
        if self.failed is None and not self.stopped and not self.done:
            assert self.n_running or self.n_ready, "work remains but nothing runs or can run"
            assert self.n_running, "tasks are ready but nothing runs: deadlock"
