"""What leaves memory when the thread runtime's core is short of it, and how it comes
back: results spilled, furthest next use first, a buffer's holders together; roots cheap to
run again (and views of a held input) dropped instead, with the pieces of them still to cut
and the tasks reading such a piece alone; woken and run again once the tasks needing them
wait for nothing else. The books of shared buffers (``buffer``, ``rename``) are kept here.

A mixin of :class:`tidegate.core.Scheduler` (methods only; its state is set in
``Scheduler.__init__``): the moves themselves (spilled, dropped, withdrawn, made ready
again) are core.py's transitions; this file decides them.
"""

from __future__ import annotations

import math

from .core_states import _PENDING, DROPPED, MEMORY, PROCESSING, READY, RELEASED, SPILLED, WAITING
from .policy import spill_candidates

# How many levels of tasks reading a withdrawn piece alone go with it (_following).
FOLLOW_DEPTH = 2


class Eviction:
    """Scheduler's spills and drops."""

    def _spill_over_budget(self, sid: int, actions: list) -> None:
        """Measured results over budget: spill those whose next use lies furthest ahead.
        (Running tasks' estimates only gate admission: their outputs may be consumed at once.)"""
        drops = any(self.rerun)
        for w, worker in enumerate(self.workers):
            excess = worker.held - worker.budget
            if excess > 0:
                self._spill(w, excess, sid, actions)
            if drops and worker.held > self.keep[w]:
                self._drop_down_to(w, self.keep[w], sid, actions)

    def _spill(self, w: int, amount: float, sid: int, actions: list, spare=(),
               waking: bool = False) -> None:
        """Spill at least ``amount`` bytes, furthest next use first, none of ``spare``;
        ``waking``: room for a task starting now (``_may_drop``)."""
        candidates = spill_candidates(
            self._in_memory[w], self.state, self.nbytes, self._priority,
            self._dependent_ptr, self._dependent_idx, PROCESSING, _PENDING,
        )  # fmt: skip
        freed = 0.0
        drops = any(self.rerun)
        movable = {i for _, i in candidates if i not in spare}
        # Last resort: results sharing a buffer with another held one (spilled alone, they
        # free nothing) and results too small to matter, a thousand of which would not free
        # the amount (a store's empty arrays: vorticity wrote 24 files for nothing).
        shared = []
        nbytes, tiny = self.nbytes, amount / 1000
        for next_use, i in candidates:
            if freed >= amount:
                break
            if i in spare:
                continue
            if nbytes[i] < tiny or self._shares(i):
                shared.append(i)
                continue
            freed += self._evict(i, drops, waking, sid, actions)
        if freed < amount and shared:
            self._evict_buffers(shared, amount - freed, movable, drops, waking, sid, actions)

    def _evict_buffers(self, shared: list, amount: float, movable: set, drops: bool,
                       waking: bool, sid: int, actions: list) -> None:
        """Evict results of ``shared`` (furthest next use first) until ``amount`` bytes
        are freed, a named buffer's holders all at once: its memory goes with the last of
        them only, so evicting piece by piece across buffers (a rechunk's piece 19 of every
        chunk, then piece 18, ...) wrote every piece before a buffer was freed. A buffer's
        next use is its holders' earliest; its freed bytes are theirs together."""
        holders, buffer = self._holders, self.buffer
        rank = {i: r for r, i in enumerate(shared)}
        soonest: dict[int, int] = {}  # buffer -> rank of its holder needed soonest
        for i in shared:
            if buffer[i]:
                soonest[buffer[i]] = rank[i]
        freed, done = 0.0, set()
        for i in sorted(shared, key=lambda i: soonest.get(buffer[i], rank[i])):
            if freed >= amount:
                return
            b = buffer[i]
            if not b:
                if self.state[i] == MEMORY:
                    freed += self._evict(i, drops, waking, sid, actions)
                continue
            if b in done:
                continue
            done.add(b)
            group = holders.get(b, set())
            # A buffer whose holders cannot all go (a running task's inputs, the task's
            # own) stays: spilling the others would write it out for nothing.
            if not group or not group <= movable:
                continue
            # Views first: once they are gone their input no longer shares its buffer.
            ordered = sorted(group, key=lambda j: (not self.views[j], rank.get(j, -1)))
            nbytes = sum(self.nbytes[j] for j in ordered)
            for j in ordered:
                self._evict(j, drops, waking, sid, actions)
            freed += nbytes

    def _evict(self, i: int, drops: bool, waking: bool, sid: int, actions: list) -> float:
        """Drop result i (a cheap root or a view, made again later) or spill it; the bytes
        freed."""
        # Sharing its buffer with another held result, it frees nothing (yet): spilling
        # goes on (at vorticity's smallest limit a chunk whose slice stayed held was spilled
        # as the room for a 64 MB difference, which then started 13 MB past the limit).
        nbytes = 0.0 if self._shares(i) else self.nbytes[i]
        drop = (drops or self.views[i]) and self._may_drop(i, waking)
        self._transition(i, DROPPED if drop else SPILLED, sid, actions)
        return nbytes

    def _leave_memory(self, i: int, w: int) -> None:
        """Held result i leaves worker w's memory (released, spilled or dropped)."""
        self._frees_nothing(i, w)
        self._unhold(i)
        self.workers[w].held -= self.nbytes[i]
        self._in_memory[w].discard(i)

    def _frees_nothing(self, i: int, w: int) -> None:
        """Held result i leaves memory's books: when it shares its buffer with another held
        result, no memory is freed, so what held results may reach drops by as much as the
        count does (the body's ceiling counted its bytes as held; until its next
        measurement the room a release made would be room on paper only: vorticity's
        slices released after a difference let the next start 13 MB past the limit)."""
        if self.ceiling[w] < math.inf and self._shares(i):
            self.ceiling[w] -= self.nbytes[i]
            b = self.buffer[i]
            if b:  # given back when the buffer's last holder goes (_unhold)
                self._taken[b] = self._taken.get(b, 0.0) + self.nbytes[i]

    def rename(self, i: int, b: int) -> None:
        """The body names result i's buffer anew (read back from disk: a copy of its own)."""
        if self.state[i] == MEMORY:
            self._unhold(i)
            self.buffer[i] = b
            if b:
                self._holders.setdefault(b, set()).add(i)
        else:
            self.buffer[i] = b

    def _unhold(self, i: int) -> None:
        b = self.buffer[i]
        if b:
            held = self._holders[b]
            held.discard(i)
            if not held:
                del self._holders[b]
                # Its memory is freed now: the ceiling gets back what its holders took
                # leaving before (else each buffer evicted whole lowered it by all but its
                # last piece, and the next task spilled another buffer for that room).
                taken = self._taken.pop(b, 0.0)
                if taken:
                    self.ceiling[self.where[i]] += taken

    def _shares(self, i: int) -> bool:
        """Does held result i share its buffer with another held result (so spilling i
        alone frees nothing)? Results flagged in ``views`` view their single input's; the
        body may name each result's buffer (``buffer``)."""
        b = self.buffer[i]
        if b and len(self._holders.get(b, ())) > 1:
            return True
        state, views = self.state, self.views
        if views[i]:
            j = self._dep_idx[self._dep_ptr[i]]
            if state[j] == MEMORY:
                return True
            i, skip = j, i  # a sibling view of the same input
        else:
            skip = -1
        for c in range(self._dependent_ptr[i], self._dependent_ptr[i + 1]):
            d = self._dependent_idx[c]
            if views[d] and d != skip and state[d] == MEMORY:
                return True
        return False

    # -- running a root again instead of spilling its output ----------------------------
    def _drop_down_to(self, w: int, level: float, sid: int, actions: list) -> None:
        """Drop held roots cheap to run again, furthest next use first, while more than
        ``level`` is held; spill nothing."""
        worker = self.workers[w]
        for _, i in spill_candidates(
            self._in_memory[w], self.state, self.nbytes, self._priority,
            self._dependent_ptr, self._dependent_idx, PROCESSING, _PENDING,
        ):  # fmt: skip
            if worker.held <= level:
                return
            if self._may_drop(i) and not self._shares(i):
                self._transition(i, DROPPED, sid, actions)

    def _may_drop(self, i: int, waking: bool = False) -> bool:
        """May result i be dropped (``_drop_with``)? ``waking``: even when a task needing
        it would wait for nothing but dropped results, woken at once (it runs again just
        before that task, in its turn). Only to make room for a task starting now, and
        once per result: over budget, or run again already, it would be admitted again
        at once and dropped again, without end."""
        going = self._drop_with(i)
        if going is None:
            return False
        return not going[1] or (waking and not self.recomputed[i])

    def _drop_with(self, i: int) -> list | None:
        """May held result i be dropped and run again later, rather than spilled? One
        cheap to make again (``_cheap_again``), no view of whose output is held, while
        every task still needing it waits for something else too (none is ready: it would
        need the result at once), but for pieces of it still to cut (``_withdrawn``).
        None if not; else those pieces and the tasks withdrawn with them, and the tasks
        to wake once it is dropped (``_following``)."""
        if self._output[i] or not self._cheap_again(i):
            return None
        state, waiting_on, dropped_in = self.state, self.waiting_on, self._dropped_in
        pieces = []
        for c in range(self._dependent_ptr[i], self._dependent_ptr[i + 1]):
            d = self._dependent_idx[c]
            s = state[d]
            if s == WAITING:
                if waiting_on[d] <= dropped_in.get(d, 0):
                    return None  # waits only for dropped roots: they are running again
            elif s == READY:
                pieces.append(d)
            elif s == PROCESSING:
                return None
            elif self.views[d] and (s == MEMORY or s == SPILLED):
                return None  # a view of i's output is held: dropping i frees nothing
        if not pieces:
            return pieces, ()
        following = self._withdrawn(i, pieces)
        if following is None:
            return None
        return pieces + following[0], following[1]

    def _cheap_again(self, i: int) -> bool:
        """Is held result i cheaper to make again than to write to disk and read back? A
        root with no inputs of a group measured so (``rerun``); or a view of its single
        input while that input is held: made again, it reads and copies nothing (at
        vorticity's 140 MB a chunk and its pad's view of it were both written, twice a
        step, 64 MB to free 32)."""
        if not self._ndeps[i]:
            return self._root[i] and self.rerun[self._group[i]]
        return bool(self.views[i]) and self.state[self._dep_idx[self._dep_ptr[i]]] in (
            MEMORY, SPILLED)

    def _withdrawn(self, i: int, pieces: list) -> tuple | None:
        """May ready tasks ``pieces`` of dropped result i go back to waiting for it, to run
        after its next run? Each reads i alone, is no output and no limit's, and a sibling
        of its group cut from i ran already (a rechunk's other split: i is cut in pieces,
        and this one is wanted later). (An anomaly's partial sum, ready beside its chunk,
        has no such sibling: it is work to do now.) A view of i dropped a moment ago ran too:
        its sibling slice then goes with i (at vorticity's 140 MB a pad's slice of a chunk
        was dropped, its sibling slice ready, and the chunk written instead: 1.0x the input
        written). None if not; else ``_following``'s."""
        state, group, views = self.state, self._group, self.views
        ran = {group[d] for d in self._dependents(i) if state[d] in (MEMORY, SPILLED, RELEASED)
               or (state[d] == DROPPED and views[d])}
        for d in pieces:
            if self._ndeps[d] != 1 or self._output[d] or d in self._limited:
                return None
            if group[d] not in ran or self.needed_by[d] == 0:
                return None  # not cut in pieces; or none would wake it (consumers do)
        return self._following(pieces, FOLLOW_DEPTH)

    def _following(self, going: list, depth: int) -> tuple | None:
        """Tasks ``going`` are withdrawn: every task needing them must wait for more than
        them and dropped results (its other inputs' ends wake the dropped ones), or, reading
        one of them alone, be withdrawn with them, ``depth`` levels down at most (a chunk's
        pad view, ready, and its splits waiting for it alone), or be woken once they are
        dropped (reading several, it would wait for nothing else: vorticity's difference of
        a split of that view and a piece of the chunk). A task's inputs among those going
        are counted over every level (reading a piece and a task withdrawn with it, one
        level down, it waits for nothing else: counted per level, it was left waiting and
        nothing woke the root, review17). None if some cannot; else those withdrawn too
        and those to wake."""
        state, waiting_on, dropped_in = self.state, self.waiting_on, self._dropped_in
        count: dict[int, int] = {}  # waiting task -> its inputs among those going
        follow: list[int] = []
        while going:
            deeper = []
            for d in going:
                for m in self._dependents(d):
                    if state[m] != WAITING:
                        return None
                    count[m] = count.get(m, 0) + 1
                    if self._ndeps[m] > 1:
                        continue
                    if depth == 0 or self._output[m] or m in self._limited or (
                            not self.needed_by[m]):  # fmt: skip
                        return None  # (one needed by none: nothing would wake it)
                    deeper.append(m)
            follow += deeper
            going, depth = deeper, depth - 1
        # (Woken when its other inputs are in, if it waits for more.)
        wake = [m for m, k in count.items()
                if self._ndeps[m] > 1 and waiting_on[m] <= dropped_in.get(m, 0) + k]  # fmt: skip
        return follow, wake

    def _rerun_priority(self, i: int) -> int:
        """A dropped root runs again just before the earliest task waiting for it (or for a
        piece of it withdrawn with it): its own priority came before the tasks it fed the
        first time (a mean), so every root woken at once would run ahead of every consumer
        ready meanwhile, and the consumers' room was made by spilling the roots read ahead
        (the zarr anomaly: 192 MB written)."""
        p = self._priority[i]
        state, priority = self.state, self._priority
        waiting = []
        below = [i]
        while below:  # down through the pieces and tasks withdrawn with it
            d = below.pop()
            for m in self._dependents(d):
                if state[m] == WAITING:
                    waiting.append(priority[m])
                elif state[m] == DROPPED:
                    below.append(m)
        return max(p, min(waiting)) if waiting else p

    def _back(self, i: int) -> None:
        """Dropped root i (or a piece withdrawn with it) is in memory again: the tasks
        waiting for it no longer count it."""
        self._returning.discard(i)
        state, dropped_in = self.state, self._dropped_in
        for c in range(self._dependent_ptr[i], self._dependent_ptr[i + 1]):
            d = self._dependent_idx[c]
            if state[d] == WAITING:
                left = dropped_in[d] - 1
                if left:
                    dropped_in[d] = left
                else:
                    del dropped_in[d]

    def _wake_inputs(self, d: int, sid: int) -> None:
        """Task d waits only for dropped results (and pieces withdrawn with them) now:
        they run again, a piece or a view after its input when that is dropped too."""
        state = self.state
        for c in range(self._dep_ptr[d], self._dep_ptr[d + 1]):
            x = self._dep_idx[c]
            if state[x] == DROPPED:
                while self._ndeps[x] and state[self._dep_idx[self._dep_ptr[x]]] == DROPPED:
                    x = self._dep_idx[self._dep_ptr[x]]
                self._transition(x, READY, sid)

