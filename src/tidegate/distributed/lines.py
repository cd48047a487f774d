"""The queue the plugin owns while it runs: queued tasks in two lines (roots, others),
best priority first, by identity."""

from __future__ import annotations

import heapq
import itertools
from heapq import heappush


class _Lines:
    """Queued tasks poke may try: roots and the others (limited tasks, readers of a
    shared input) in two lines, so that poke can go on with the others once no root can
    start, without walking the roots."""

    __slots__ = ("_roots", "_others", "_is_root", "_root_cache", "added")

    def __init__(self, is_root, cache=None) -> None:
        """``is_root(ts)``: is ts a root; ``cache``: key -> that answer, filled by
        ``is_root`` (read first, without its call: once per queued task)."""
        self._roots, self._others, self._is_root = _Line(), _Line(), is_root
        self._root_cache = {} if cache is None else cache
        self.added = 0  # tasks added so far: none since a task was the best, it still is

    def __len__(self) -> int:
        return len(self._roots) + len(self._others)

    def __contains__(self, ts) -> bool:
        # (the lines' dicts, not _Line.__contains__: asked 1-2 times per task)
        key = ts.key
        e = self._roots._live.get(key)
        if e is not None and e[0] is ts:
            return True
        e = self._others._live.get(key)
        return e is not None and e[0] is ts

    def add(self, ts) -> None:
        self.added += 1
        root = self._root_cache.get(ts.key)
        if root is None:
            root = self._is_root(ts)
        (self._roots if root else self._others).add(ts)

    def discard(self, ts) -> None:
        self._roots.discard(ts)
        self._others.discard(ts)

    def discard_key(self, key) -> None:
        # (the lines' dicts directly: once per queued task)
        self._roots._live.pop(key, None)
        self._others._live.pop(key, None)

    def has_roots(self) -> bool:
        return bool(self._roots)

    def roots_queued(self) -> int:
        """How many roots are in line."""
        return len(self._roots)

    def roots(self) -> list:
        """The queued roots, a copy in no order (the line may change while it is walked)."""
        return [ts for ts, _ in self._roots._live.values()]

    def best(self, roots: bool = True):
        """The best task of both lines (``roots=False``: of the others only), or None."""
        # (the lines' dicts, not their __len__: asked at every poke)
        o = self._others.peek() if self._others._live else None
        if not roots or not self._roots._live:
            return o
        r = self._roots.peek()
        return r if o is None or r.priority < o.priority else o


class _Line:
    """Queued tasks poke may try, best priority first. By identity: dask's TaskState
    compares equal by key, and a key forgotten and submitted again is a new task."""

    __slots__ = ("_heap", "_live", "_seq")

    def __init__(self) -> None:
        self._heap: list = []  # (priority, seq, ts); stale entries dropped when met
        self._live: dict = {}  # key -> (ts, seq) of the entry that counts
        self._seq = itertools.count()

    def __len__(self) -> int:
        return len(self._live)

    def __contains__(self, ts) -> bool:
        e = self._live.get(ts.key)
        return e is not None and e[0] is ts

    def add(self, ts) -> None:
        live, key = self._live, ts.key
        e = live.get(key)  # (self.__contains__ inlined: once per queued task)
        if e is not None and e[0] is ts:
            return
        seq = next(self._seq)
        live[key] = (ts, seq)
        heappush(self._heap, (ts.priority, seq, ts))
        # Mostly stale: rebuild (looked at once in 1,024 adds: the order peek finds is the
        # same whenever it is rebuilt, only the heap's length differs)
        if not seq & 1023 and len(self._heap) > 2 * len(live) + 1024:
            self._heap = [(t.priority, q, t) for t, q in self._live.values()]
            heapq.heapify(self._heap)

    def discard(self, ts) -> None:
        e = self._live.get(ts.key)
        if e is not None and e[0] is ts:
            del self._live[ts.key]

    def peek(self):
        heap, live = self._heap, self._live
        while heap:
            _, seq, ts = heap[0]
            e = live.get(ts.key)
            if e is not None and e[1] == seq:
                return ts
            heapq.heappop(heap)
        raise KeyError("peek into an empty line")
