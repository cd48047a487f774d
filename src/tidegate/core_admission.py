"""Which ready task starts where, in the thread runtime's core: the fill (strict priority
order over the workers' free threads), the admission of withheld roots (the books' rule),
concurrency limits, and the room a task needs to run (the fewer-at-once gate, threads past
those fitted to memory, the spills that make room as it starts).

A mixin of :class:`tidegate.core.Scheduler` (methods only; its state is set in
``Scheduler.__init__``): it changes a task's state only through ``_transition``.
"""

from __future__ import annotations

import heapq
import math

import numpy as np

from . import policy as policy_module  # (FREES_SLOT read per decision: tests set it)
from .core_states import _FINISHED, MEMORY, PROCESSING, SPILLED
from .policy import frees_slot, joins_started_fan_in, meeting_partners, meeting_plan, reduces

# Ready tasks _pop_ready looks through, best first, for one whose inputs are all in memory.
LOOK_AHEAD = 64
# A task with inputs under this share of those its group's need was measured with needs its
# share of that need (a truediv of a pad's two edge rows is not given the 68 MB of one of
# its full-chunk siblings: at vorticity's 140 MB that need spilled a chunk and its view).
SMALLER = 0.25


def _heap_remove(heap: list, k: int) -> None:
    """Remove entry k of a heap in O(log n)."""
    last = heap.pop()
    if k < len(heap):
        heap[k] = last
        heapq._siftup(heap, k)  # noqa: SLF001 - heapq's own, exact for this
        heapq._siftdown(heap, 0, k)  # noqa: SLF001


class Admission:
    """Scheduler's choice of the tasks that start, and of the room they start in."""

    def _fill(self, sid: int, actions: list) -> None:
        """Give every free slot its best admissible task, in strict priority order.

        A worker stops when the head root is withheld there and nothing else is ready. When
        a later worker then takes that head, the next head may be admissible on the earlier
        one: blocked workers are visited again until the head stops changing."""
        ready, roots = self._ready, self._ready_roots
        workers = self.workers
        limited = self._limited
        visit = range(len(workers))
        while True:
            blocked = []
            head = roots[0] if roots else None
            for w in visit:
                worker = workers[w]
                while worker.processing < worker.threads:
                    best = ready[0][0] if ready else math.inf
                    # Over budget, an idle worker runs a ready non-root before a dropped
                    # root that only the progress rule would admit (its earlier priority
                    # came before its consumers': all would run first and be spilled).
                    admitted = bool(roots) and roots[0][0] < best and self._admit(
                        w, roots[0][1], sid, not (ready and self.recomputed[roots[0][1]]))
                    if admitted and self._root_fits(w, roots[0][1]):
                        p, i = heapq.heappop(roots)
                    elif ready:
                        p, i = self._pop_ready()
                    else:
                        if admitted and worker.processing >= self.fit[w]:
                            self.extra_waits += 1  # a thread past those fitted: not the gate's
                        elif admitted and self._held_back != (sid, w):
                            # Memory, not the root count, leaves this thread idle beside a
                            # running task: the gate's doing, counted as its (uncounted,
                            # 250 MB of 108 MB tasks was said to fit 2 threads in 1 run of 7);
                            # once per stimulus (_fill runs again as tasks settle).
                            self._held_back = (sid, w)
                            self.gate_refusals += 1
                            self.gate_short = self._room_short(w, roots[0][1])
                        if roots:
                            blocked.append(w)
                        break  # nothing ready, or only withheld roots
                    if limited and i in limited and self._limit_holds(i, p, sid):
                        continue  # kept aside until its limit frees; look further
                    if self._probes and self.unknown[g := self._group[i]] and (
                            g in self._probes.values()):
                        # Nothing sizes it and a task of its group runs: it waits for that
                        # one's measurement rather than pass the limit beside it.
                        heapq.heappush(roots if self._root[i] else ready, (p, i))
                        break
                    if self.ceiling[w] < math.inf:
                        if worker.processing >= self.fit[w] and not self._fits_after(w, i):
                            heapq.heappush(roots if self._root[i] else ready, (p, i))
                            self.extra_waits += 1
                            break
                        if worker.processing and (short := self._room_short(w, i)) > 0:
                            # Fewer at once rather than spill to start a second task: what
                            # it would spill is the input of the tasks next in line (at
                            # 300 MB vorticity and rechunk-add wrote 32-480 MB so, now 0).
                            heapq.heappush(roots if self._root[i] else ready, (p, i))
                            self.gate_refusals += 1
                            self.gate_short = short
                            break
                        self._make_room(w, i, sid, actions)
                    self._transition(i, PROCESSING, sid, actions, w)
            if not blocked or not roots or roots[0] == head:
                return
            visit = blocked

    def _pop_ready(self) -> tuple[int, int]:
        """The best ready non-root; but while it would read an input back from disk, the
        best one whose inputs are all in memory before it: what is in memory is used before
        something is read back to evict it (a rechunk's splits of three 128 MB pieces,
        interleaved by priority where one fits: each read its piece back and wrote another,
        3.6-4.5 GB written for 384 MB of input)."""
        ready, state = self._ready, self.state
        i = ready[0][1]
        if all(state[d] != SPILLED for d in self._dependencies(i)):
            return heapq.heappop(ready)
        # The heap's entries in priority order, the first LOOK_AHEAD of them at most (a side
        # heap of positions: sorting the whole heap per pop took a 24k-task anomaly's core
        # from 2.2 to 40.8 s, review16).
        side = [(ready[0], 0)]
        for _ in range(LOOK_AHEAD):
            if not side:
                break
            entry, k = heapq.heappop(side)
            if all(state[d] == MEMORY for d in self._dependencies(entry[1])):
                _heap_remove(ready, k)
                return entry
            for c in (2 * k + 1, 2 * k + 2):
                if c < len(ready):
                    heapq.heappush(side, (ready[c], c))
        return heapq.heappop(ready)

    def _admit(self, w: int, i: int, sid: int, progress: bool = True) -> bool:
        """May root i start on worker w? (A root blocked by memory waits for consumers to
        free some: making room by spilling to start it early thrashes once the working set
        exceeds the budget, a write and a read per chunk to keep one more thread busy.)"""
        return self.books.admits(
            w, i, self._known_size[i], self._group[i],
            lambda: self._completes_consumer(i, w, True), sid, progress, waiting=self._waiting(w),
        )

    def _waiting(self, w: int) -> int:
        """Ready tasks that would wait for a thread if a root took one of w's free threads
        (``policy.may_admit_root``'s ``queued``): those beyond w's other free threads. Only
        the threads fitted to memory count (``fit``): a thread past them starts a task only
        where it fits (_fits_after), and counted free it let roots past the count ahead of
        the ready tasks that free them (review19: 188 of 6,000 random runs decided unlike a
        core given the fitted threads alone, though every extra thread was refused)."""
        worker = self.workers[w]
        free = min(worker.threads, self.fit[w]) - worker.processing
        return max(0, len(self._ready) - (free - 1))

    def _completes_consumer(self, i: int, w: int, frees: bool = False) -> bool:
        """Would root i's data complete a consumer on worker w (``meeting_partners``'
        ``complete``, the plugin's rule too)? With the sizes the plugin's walk reads too
        (here the layer's chunk metadata, as ``find_roots``): without them a stencil's
        block held before its halo slices ran was taken for a handle, and no meeting
        completed there (a 10 x 10 stencil of 720 kB blocks: yes 122 times in 855
        questions, where the plugin's walk said yes 213 in 471). ``frees`` (admission's
        question): a completed meeting counts only where completing it frees a slot
        (policy.frees_slot), where policy.FREES_SLOT and policy.frees_slot_on say so, as
        the plugin's placement._decide asks after its walk."""
        complete: set = set()
        constant = self._constant.__getitem__
        plan = meeting_plan(i, self._dependents, self._dependencies, constant=constant)
        tops: dict | None = {} if frees and policy_module.FREES_SLOT & 1 and (
            policy_module.frees_slot_on(self.workers[w].threads)) else None  # fmt: skip
        meeting_partners(i, self._dependents, self._dependencies, self._where,
                         constant=constant, complete=complete,
                         nbytes=self._known_size.__getitem__, plan=plan, tops=tops)  # fmt: skip
        if w in complete and tops is not None and not frees_slot(
                tops.get(w, ()), self.books.carries, self._reduces):  # fmt: skip
            complete.discard(w)
        return w in complete or joins_started_fan_in(i, plan, self._dependencies, self._where)

    def _reduces(self, u: int, c: int) -> bool:
        """``policy.frees_slot``'s ``reduces``: has u's group so far kept less than
        ``chain_keep`` of c's bytes (``policy.reduces``, on the average its finished tasks
        returned, as the plugin reads dask's TaskGroup: tasks._returned; none finished:
        no)? Found when asked (rarely: a pass past the count on a worker where
        policy.frees_slot_on holds), not kept per task end."""
        g = self._group[u]
        tasks = self._group_tasks.get(g)
        if tasks is None:
            tasks = self._group_tasks[g] = np.flatnonzero(self.graph.group == g).tolist()
        state, nbytes = self.state, self.nbytes
        done = [nbytes[t] for t in tasks if state[t] in _FINISHED]
        if not done:
            return False
        s = state[c]
        size = nbytes[c] if s == MEMORY or s == SPILLED else self.books.estimate(
            self._known_size[c], self._group[c])
        return reduces(sum(done) / len(done), size, self.policy.chain_keep)

    def _limit_holds(self, i: int, p: int, sid: int) -> bool:
        """Is ready task i withheld by a full concurrency limit? Then it is kept aside in
        ``self.limits`` (still READY) until a task of that limit ends, and offered again at
        the priority it was ready with, p (a dropped root's is its consumer's, not its own)."""
        names = self._limited[i]
        name = self.limits.full(names)
        if name is None:
            return False
        self.limits.hold(name, p, i, names)
        self.books.log.append((i, "withheld", "limit", name, sid))
        return True

    def _limit_frees(self, i: int) -> None:
        """Task i ended: the tasks its limits withheld are offered again, best first."""
        for p, t in self.limits.on_done(i):
            heapq.heappush(self._ready_roots if self._root[t] else self._ready, (p, t))

    def _root_fits(self, w: int, i: int) -> bool:
        """Does root i fit beside what worker w holds and runs, without spilling? A root
        that does not waits for consumers to free memory (spilling to start it thrashes: an
        anomaly's dropped chunks, read again, each spilled the one read before the task
        using it ran), unless the worker is idle with no other task ready (progress)."""
        if self._wanted(w, i) <= self.ceiling[w]:
            return True
        return not self.workers[w].processing and not self._ready  # progress: nothing else to run

    def _make_room(self, w: int, i: int, sid: int, actions: list) -> None:
        """Task i is about to start on worker w: held results, the inputs it reads back,
        running tasks' needs and its own must stay within the worker's ceiling. Spill
        results other than i's inputs, furthest next use first, until they do (as far as
        they can: one task always starts). Only the first task on an idle worker makes
        room so: beside a running task, one that does not fit waits (``_fill``)."""
        excess = self._room_short(w, i)
        if excess > 0:
            self._spill(w, excess, sid, actions, set(self._dependencies(i)), waking=True)

    def _room_short(self, w: int, i: int) -> float:
        """Bytes by which task i, its spilled inputs read back, would pass w's ceiling."""
        want = self._wanted(w, i)
        state, nbytes = self.state, self.nbytes
        for d in self._dependencies(i):
            if state[d] == SPILLED:
                want += nbytes[d]
        return want - self.ceiling[w]

    def _fits_after(self, w: int, i: int) -> bool:
        """May task i start on a thread past those fitted to memory on worker w? Only where
        it fits now, and where what w holds, the results of its running tasks and i's own,
        and ``after`` stay within the ceiling (inputs the tasks free are not counted). A task
        needing more than twice what the running ones need (it outlasts them) must also
        leave ``after`` free beside them now: else the fitted thread, free again first,
        waits for it (vorticity at 170 MB: a chunk's read started beside the slices held
        the store back for the whole read, and the next step's two reads, which fit
        together, ran one at a time: 3% of the reads' seconds paired, 48% with this rule,
        70% with local_steering._recheck too)."""
        if self._room_short(w, i) > 0:
            return False
        if self.below and 2 * self._running_need[w] < self._task_need(i) and (
                self._wanted(w, i) + self.after > self.ceiling[w]):  # fmt: skip
            return False  # it would outlast the running tasks and hold the next one back
        out, group = self.out, self._group
        held = self.workers[w].held + out[group[i]] + self.after
        for t in self._needs:  # the running tasks (one worker in the thread runtime)
            if self.where[t] == w:
                held += out[group[t]]
        return held <= self.ceiling[w]

    def _wanted(self, w: int, i: int) -> float:
        """What worker w holds and its running tasks need, plus what task i needs to run."""
        return self.workers[w].held + self._running_need[w] + self._task_need(i)

    def _task_need(self, i: int) -> float:
        """Bytes task i needs while it runs besides its inputs: its group's need, or, when
        its inputs are larger than those the need was measured with (by a quarter: sizes of
        one chunk vary a little), ``grow`` times its inputs, at most ``grow_cap``; when
        they are under ``SMALLER`` of those, the need in proportion to its inputs. Never
        less than ``least``."""
        g = self._group[i]
        need = self.need[g]
        sized = self.sized[g]
        if sized < math.inf and self._ndeps[i]:
            nbytes = self.nbytes
            inputs = 0
            for c in range(self._dep_ptr[i], self._dep_ptr[i + 1]):
                inputs += nbytes[self._dep_idx[c]]
            if inputs > 1.25 * sized:
                need = max(need, min(self.grow_cap, self.grow * inputs))
            elif inputs < SMALLER * sized:
                need = need * inputs / sized
        return max(need, self.least.get(i, 0.0)) if self.least else need

