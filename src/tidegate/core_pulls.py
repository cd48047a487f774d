"""Bringing a held result's consumers forward, in the thread runtime's core: when every
task still needing a result can finish from what is in memory and leaves far less held,
those tasks run next, in their own order, and the result is freed instead of held (or
spilled) until dask.order comes back to each of them. Only where the graph carries no
priorities of the user's (``Scheduler._pulls``).

A mixin of :class:`tidegate.core.Scheduler` (methods only; its state is set in
``Scheduler.__init__``): it changes priorities, never a task's state.
"""

from __future__ import annotations

import heapq
import math

from .core_states import _PENDING, MEMORY, PROCESSING, READY, SPILLED, WAITING

# Tasks _pull_consumers brings forward for one result at most (its walk stops there).
PULL_MOST = 256
# Walks for a layer's results that found no cone, in a row, after which its results are
# not walked again (a 1-D stencil of 110k tasks walked 20k times and pulled nothing: its
# core took 10x the time).
PULL_MISSES = 8


def _layers(keys: list) -> list[int]:
    """Per task, an index of its layer: the name its key shares with its layer's others."""
    ids: dict = {}
    return [ids.setdefault(k[0] if type(k) is tuple else k, len(ids)) for k in keys]


class Pulls:
    """Scheduler's pulls of consumer cones."""

    def _pull_consumers(self, x: int, sid: int) -> None:
        """Result x is in memory; when every task still needing it can finish from results
        in memory (no root to load, nothing to read back) and what they leave held is far
        less than x, they run next, with the tasks they wait for, in their own order: x is
        then freed, not held (or spilled) until the order comes back to each of them. (A
        rolling mean's windowed sums, 19.2 MB each, are read by 9 pieces that dask.order
        runs one per pass over the time axis: all 20 sums were held for 8 passes and, below
        384 MB, spilled and read back: 1.9x the input written at 200 MB.)"""
        roots = self._ready_roots
        if not roots:
            return  # nothing would be loaded before x's consumers: their order stands
        misses, layer = self._pull_misses, self._layer[x]
        if misses[layer] < PULL_MISSES:
            if self._pull(x, sid):
                misses[layer] = 0
            else:
                misses[layer] += 1
        # Results whose cone was refused on sizes guessed, not measured (the first chunks
        # of a resample, before any of their weeks ran), are walked again once a layer more
        # is sized: they were held to the end of the run, 38 MB of the 130 MB held.
        if self._retry and self._retry_sized != self._layers_sized:
            self._retry_sized = self._layers_sized
            retry, self._retry = self._retry, []
            state, needed_by = self.state, self.needed_by
            for y in retry:
                if state[y] == MEMORY and needed_by[y] and roots:
                    self._pull(y, sid)

    def _pull(self, x: int, sid: int) -> bool:
        """Bring x's consumer cone forward (_pull_consumers); False if it has none."""
        self._guessed = False
        cone = self._consumer_cone(x)
        if cone is None:
            if self._guessed and len(self._retry) < PULL_MISSES:
                self._retry.append(x)
                self._retry_sized = self._layers_sized
            return False
        priority = self._priority
        roots = self._ready_roots
        if roots[0][0] > max(priority[t] for t in cone):
            return True  # they run before the next root in their own order already
        changed = {}
        base, m = priority[x], len(cone) + 1
        for r, t in enumerate(sorted(cone, key=priority.__getitem__), 1):
            p = base + r / m  # after x, before anything x came before (dask.order's ints)
            if p < priority[t]:
                priority[t] = changed[t] = p
        if not changed:
            return True
        self.books.log.append((x, "pulled", "consumers", len(changed), sid))
        ready = self._ready
        if any(t in changed for _, t in ready):
            ready[:] = [(changed.get(t, p), t) for p, t in ready]
            heapq.heapify(ready)
        return True

    def _consumer_cone(self, x: int) -> set | None:
        """The tasks to run for every task needing held result x to finish: down through
        those whose outputs are not much smaller than their share of x (a view or a copy
        of a piece of it frees nothing yet), then up through the pending tasks these wait
        for. None if one is a root, an output or under a limit, if there are more than
        ``PULL_MOST``, or if the results they leave in memory, sized by their layers'
        largest so far, are not known or come to more than half of x: those read by tasks
        outside, and inputs they read back from disk that tasks outside read too (an input
        read back for them alone is read back as well when they run in their turn).
        Where there is none, the near cone (_near_cone)."""
        state, layer = self.state, self._layer
        sized = self._layer_bytes.__getitem__
        consumers = [d for d in self._dependents(x) if state[d] == WAITING or state[d] == READY]
        if not consumers:
            return None  # (a result walked again: its consumers all started)
        small = self.nbytes[x] / len(consumers) / 4
        cone: set[int] = set()
        for stack, down in ((list(consumers), True), ([], False)):
            if not down:  # up from every task found going down
                stack = [e for t in cone for e in self._dependencies(t)
                         if state[e] == WAITING or state[e] == READY]  # fmt: skip
            while stack:
                t = stack.pop()
                if t in cone:
                    continue
                if self._root[t] or self._output[t] or t in self._limited or (
                        len(cone) == PULL_MOST):  # fmt: skip
                    return self._near_cone(x, consumers)
                cone.add(t)
                if down:
                    if not sized(layer[t]) <= small:  # (NaN: unknown, not small)
                        stack.extend(d for d in self._dependents(t) if state[d] == WAITING)
                    continue
                for e in self._dependencies(t):
                    s = state[e]
                    if s == WAITING or s == READY:
                        stack.append(e)
        left = self._left(cone, lambda t: sized(layer[t]), -math.inf)
        return cone if left <= self.nbytes[x] / 2 else self._near_cone(x, consumers)  # (NaN: no)

    def _near_cone(self, x: int, consumers: list) -> set | None:
        """Where no task below x's consumers ends their way down (a resample's chunk feeds
        the global mean and its weeks, and both end in the std over every chunk, behind all
        roots): the consumers, the pending tasks they wait for, and below them the tasks
        that can run from those and the results in memory (a week's two pieces of two
        chunks, combined). None on the far cone's grounds, except that what it leaves is
        counted without the tasks that come before the next root in their own order: they
        leave it with no pull too. (dask.order put a resample's weeks after every root
        for the global mean's sake: each chunk, 19.2 MB, was held until its weeks ran,
        1.3x threaded's peak RSS under the default limit.)"""
        state = self.state
        cone: set[int] = set()
        stack = list(consumers)
        while stack:
            t = stack.pop()
            if t in cone:
                continue
            if self._root[t] or self._output[t] or t in self._limited or len(cone) == PULL_MOST:
                return None
            cone.add(t)
            for e in self._dependencies(t):
                s = state[e]
                if s == WAITING or s == READY:
                    stack.append(e)
        layer, group = self._layer, self._group
        by_layer, by_group, by_chunks = self._layer_bytes, self._group_bytes, self._chunk_bytes

        def sized(t):  # a layer none of whose tasks ran yet: its group's, or its chunks'
            n = by_layer[layer[t]]
            if n != n:
                self._guessed = True
                n = by_group[group[t]]
            return by_chunks[t] if n != n else n

        stack = list(cone)
        while stack and len(cone) < PULL_MOST:
            for d in self._dependents(stack.pop()):
                if d in cone or state[d] != WAITING or self._root[d] or self._output[d] or (
                        d in self._limited) or sized(d) != sized(d):  # fmt: skip
                    continue  # (unsized: left out, what its inputs leave is counted)
                if all(e in cone or state[e] == MEMORY or state[e] == PROCESSING
                       for e in self._dependencies(d)):  # fmt: skip
                    cone.add(d)
                    stack.append(d)
        # Under half of x, strictly: pieces of x (copies, views) that make x together leave
        # half of it at least, however many there are, with one of them run first anyway
        # (a rechunk's two halves of a chunk: the chunk cheap to read again is dropped and
        # read again, not held as its later half until that half's merge).
        left = self._left(cone, sized, self._ready_roots[0][0])
        return cone if left < self.nbytes[x] / 2 else None  # (NaN: no)

    def _left(self, cone: set, sized, first: float) -> float:
        """What the tasks of a cone leave in memory (_consumer_cone), but those ordered
        before priority ``first``; NaN where a dropped input would run again first."""
        state, nbytes, priority = self.state, self.nbytes, self._priority
        left = 0.0
        read: set[int] = set()
        for t in cone:
            for e in self._dependencies(t):
                s = state[e]
                if s == SPILLED:
                    read.add(e)
                elif s != MEMORY and s != PROCESSING and e not in cone:
                    return math.nan  # (dropped: it runs again first)
            if priority[t] > first and any(d not in cone for d in self._dependents(t)):
                left += sized(t)
        for e in read:
            if any(d not in cone and state[d] in _PENDING for d in self._dependents(e)):
                left += nbytes[e]
        return left

