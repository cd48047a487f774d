"""Queued readers held for a copy of a shared input (broadcast.py), best priority first.

Each held reader is woken (to be looked at again) or parked. Every copy that starts, lands
or is dropped wakes them all, and the plugin's poke looks at the woken best first, each
as ``Broadcast.place`` would: nearly all stay held. When every held reader waits for the
same shared inputs and every holder of them is sending, only a reader held on a worker
that holds (or awaits) all of them can go; the readers before it stay held. :meth:`skip`
passes over those in bulk, and their "held at this generation" stamps are kept as ranges
(:meth:`stamped`) instead of one write each. Why: on the twin's anomaly at 1,000 workers
every reader waits for the mean, so each copy of it woke all of them: 70,286 looks for
1,551 pokes, nearly all held again.
"""

from __future__ import annotations

import itertools
from bisect import bisect_left, bisect_right, insort

from sortedcontainers import SortedList


_chain, _islice, _from_iterable = itertools.chain, itertools.islice, itertools.chain.from_iterable
_EMPTY = ()


def _irange_after(lst, mark):
    """``lst.irange(mark, inclusive=(False, True))``: the entries after ``mark``, in order."""
    return lst.irange(mark, inclusive=(False, True))


def _after_by_sublists(lst, mark):
    """The entries of SortedList ``lst`` after ``mark``, in order, as its ``irange(mark,
    inclusive=(False, True))`` finds them (the same sublist and index by bisect_right over
    ``_maxes`` and the sublist, then every later sublist), with C's bisect and iterators:
    irange's and _islice's Python steps cost ~60 bytecodes a call, and poke asks for the
    first woken reader at every step of its scan (twin anomaly 100 x 4: ~2,000 calls).
    The line must not change while it is read (as for irange)."""
    lists = lst._lists
    pos = bisect_right(lst._maxes, mark)
    if pos == len(lists):
        return _EMPTY
    first = lists[pos]
    return _chain(_islice(first, bisect_right(first, mark), None),
                  _from_iterable(_islice(lists, pos + 1, None)))


def _has_sublists() -> bool:
    """Does this sortedcontainers' SortedList keep the sublists _after_by_sublists reads
    (``_lists``, ``_maxes``: each sublist's largest), giving irange's entries?"""
    try:
        lst = SortedList(range(0, 9000, 3))  # (3 sublists at the default load, 1,000)
        if len(lst._lists) < 2 or lst._maxes != [x[-1] for x in lst._lists]:
            return False
        return all(list(_after_by_sublists(lst, m)) == list(_irange_after(lst, m))
                   for m in (-1, 0, 1, 2999, 3000, 3001, 8997, 8998, 9000, 4500.5))
    except Exception:
        return False


_after = _after_by_sublists if _has_sublists() else _irange_after


class Held:
    """Held readers in priority order. :meth:`wake` wakes all in O(1): the parked are
    those up to a mark in priority order (poke looks at the woken best first, so the mark
    only moves forward until the next wake), plus those parked beyond it. Before, each
    wake moved every held reader back into the queue and each look parked it again (twin
    vorticity, 100 workers: 800 wakes of about 70 readers each).

    Each reader is parked with the worker it is held on and the keys of its shared inputs
    (``sig``); readers are indexed by that worker, and counted per ``sig``."""

    __slots__ = (
        "_ahead",
        "_entry",
        "_list",
        "_mark",
        "_meta",
        "_on",
        "_ranges",
        "_ranges_gen",
        "_seq",
        "_sigs",
        "_changed",
    )

    def __init__(self, changed: set | None = None) -> None:
        # Workers that gain their first held reader or lose their last are added to
        # ``changed`` (the books' set): held readers keep a worker from counting as idle
        # (Books.expecting), so the plugin must look at it again.
        self._changed = set() if changed is None else changed
        self._list = SortedList()  # (priority, seq, ts)
        self._entry: dict = {}  # key -> its entry
        self._mark = None  # entries up to here are parked; beyond, woken unless in _ahead
        self._ahead: set = set()  # keys parked beyond the mark
        self._seq = itertools.count()
        self._meta: dict = {}  # key -> (worker address it is held on, sig)
        self._on: dict = {}  # address -> its readers' entries, sorted (a plain list)
        self._sigs: dict = {}  # sig -> readers with it
        # Stamps given in bulk (skip): entries in (lo, hi] but not in exc were held anew
        # at generation _ranges_gen (ranges of older generations no longer matter).
        self._ranges: list = []  # [(lo, hi, exc)]
        self._ranges_gen = None

    def __len__(self) -> int:
        return len(self._entry)

    def __contains__(self, ts) -> bool:
        e = self._entry.get(ts.key)
        return e is not None and e[2] is ts

    def park(self, ts, addr=None, sig=frozenset()) -> None:
        """``ts`` is held on worker ``addr`` for its shared inputs ``sig``."""
        self.discard_key(ts.key)
        key = ts.key
        e = (ts.priority, next(self._seq), ts)
        self._entry[key] = e
        self._list.add(e)
        self._meta[key] = (addr, sig)
        on = self._on.get(addr)
        if on is None:
            self._on[addr] = [e]
            self._changed.add(addr)
        else:
            insort(on, e)
        self._sigs[sig] = self._sigs.get(sig, 0) + 1
        if self._mark is None or e > self._mark:
            self._ahead.add(key)

    def any_parked(self) -> bool:
        """Is any reader parked (not woken since it was last looked at)?"""
        return bool(self._ahead) or (self._mark is not None
                                     and self._list.bisect_right(self._mark) > 0)

    def wake(self) -> None:
        self._mark = None
        self._ahead.clear()

    def first(self):
        """The best woken reader, or None: :meth:`woken`'s first, found without a
        generator (poke asks at every step of its scan)."""
        lst, ahead = self._list, self._ahead
        it = iter(lst) if self._mark is None else _after(lst, self._mark)
        for e in it:
            ts = e[2]
            if ts.key in ahead:
                ahead.discard(ts.key)
                self._mark = e
                continue
            return ts
        return None

    def woken(self):
        """The woken readers, best first, lazily. Parked ones found before the next woken
        move the mark past them (amortised O(1) each), so each reader yielded must be
        reparked (:meth:`repark_first`) before the next is asked for, or the iteration
        dropped; the line must not change meanwhile."""
        lst, ahead = self._list, self._ahead
        it = iter(lst) if self._mark is None else _after(lst, self._mark)
        for e in it:
            if e[2].key in ahead:
                ahead.discard(e[2].key)
                self._mark = e
                continue
            yield e[2]

    def repark_first(self, ts) -> None:
        """``ts``, just returned by :meth:`first`, was looked at and stays held."""
        self._mark = self._entry[ts.key]

    def discard(self, ts, held=None, generation=None) -> None:
        if ts in self:
            self.discard_key(ts.key, held, generation)

    def discard_key(self, key, held=None, generation=None) -> None:
        """Forget ``key``'s reader. ``held`` (``Broadcast.held``): a stamp given in bulk
        at ``generation`` (the current one) is written there, as a look would have."""
        e = self._entry.pop(key, None)
        if e is None:
            return
        self._list.remove(e)
        self._ahead.discard(key)
        addr, sig = self._meta.pop(key)
        on = self._on[addr]
        del on[bisect_left(on, e)]
        if not on:
            del self._on[addr]
            self._changed.add(addr)
        n = self._sigs[sig] - 1
        if n:
            self._sigs[sig] = n
        else:
            del self._sigs[sig]
        if held is not None and self._ranges_gen == generation and self.stamped(e, generation):
            h = held.get(key)
            if h is not None:
                held[key] = (h[0], generation)

    def resig(self, sig) -> None:
        """Each reader's shared inputs found again (``sig(ts)``): after a new graph, which
        may give an input more readers."""
        self._sigs.clear()
        for key, e in self._entry.items():
            addr, _ = self._meta[key]
            new = sig(e[2])
            self._meta[key] = (addr, new)
            self._sigs[new] = self._sigs.get(new, 0) + 1

    def addresses(self):
        """The workers readers are held on (a keys view)."""
        return self._on.keys()

    def only_sig(self):
        """The shared inputs every held reader has, if all have the same; else None."""
        if len(self._sigs) != 1:
            return None
        (sig,) = self._sigs
        return sig

    def stamped(self, e, generation) -> bool:
        """Was entry ``e`` held anew in bulk at ``generation``?"""
        if self._ranges_gen != generation or generation is None:
            return False
        for lo, hi, exc in self._ranges:
            if lo < e <= hi and e[2].key not in exc:
                return True
        return False

    def hold_stamped(self, bound, limit: int, held: dict, generation, workers) -> int:
        """Hold anew, best first, the woken readers after the mark that a look would hold
        again by their stamp alone (hooks' ``Admission._look_held``, every worker running):
        queued, held (``held``: ``Broadcast.held``) on a worker of ``workers``, stamped at
        ``generation`` by their own stamp or in bulk (:meth:`stamped`; a bulk one is
        written into ``held``, as a look writes it), of priority better than ``bound``
        (None: no bound), at most ``limit``. Stops before the first woken reader that is
        not so, parked ones before it passed over as :meth:`woken` passes them. Returns
        how many: each is what a look would have done (the mark moved past it), in a
        loop of ~40 bytecodes a reader instead of a look's ~180. Why: the timer wakes
        every held reader (a worker may have paused), and each is looked at again while
        none of what it was held by changed (twin anomaly 100 x 4: 5 ticks looked at
        ~244 readers each, 3% of the plugin's bytecodes)."""
        if limit <= 0:
            return 0
        lst, ahead = self._list, self._ahead
        mark = self._mark
        it = iter(lst) if mark is None else _after(lst, mark)
        ranges = self._ranges if self._ranges_gen == generation and generation is not None \
            else ()  # fmt: skip
        cur = None  # the bulk stamp the last reader was found in (the next mostly is too)
        get = held.get
        last = None  # the mark, once past it
        n = 0
        for e in it:
            ts = e[2]
            key = ts.key
            if key in ahead:
                ahead.discard(key)
                last = e
                continue
            if (bound is not None and not ts.priority < bound) or ts.state != "queued":
                break
            h = get(key)
            if h is None or h[0] not in workers:
                break
            if h[1] != generation:
                # (stamped(e, generation), the range found last asked first)
                if cur is None or not e <= cur[1] or key in cur[2]:
                    cur = next((r for r in ranges if r[0] < e <= r[1] and key not in r[2]),
                               None)  # fmt: skip
                    if cur is None:
                        break
                held[key] = (h[0], generation)
            last = e
            n += 1
            if n == limit:
                break
        if last is not None:
            self._mark = last
        return n

    def stamped_key(self, key, generation) -> bool:
        return self._ranges_gen == generation and self.stamped(self._entry[key], generation)

    def skip(self, covered, bound, limit: int, generation) -> int:
        """Hold anew the woken readers after the mark, best first, that come before the
        first woken reader held on a worker in ``covered``, before the first of
        priority ``bound`` or worse (None: no bound), and at most ``limit``: as many looks
        would, each holding its reader again at ``generation``. Returns their number.

        The caller vouches that each of them would be held again (their worker covers
        not all their shared inputs, and every holder of those is sending). Cost:
        O(log n) per covered worker with readers and per reader parked since the last
        wake, not per reader passed over."""
        mark = self._mark
        lst, ahead, on, entry = self._list, self._ahead, self._on, self._entry
        start = 0 if mark is None else lst.bisect_right(mark)
        end = len(lst) if bound is None else lst.bisect_left((bound,))
        # (the best of the covered workers' first woken readers, then one bisect: the line
        # is sorted, so the least bisect is the least entry's; a SortedList.bisect_left is
        # ~38 bytecodes in Python, and covered held 25 workers a call, median, on twin
        # anomaly 100 x 4)
        first = None
        for a in covered:
            es = on.get(a)
            if not es:
                continue
            i = 0 if mark is None else bisect_right(es, mark)
            if ahead:  # (none parked since the wake: every skip of twin anomaly 100 x 4)
                while i < len(es) and es[i][2].key in ahead:
                    i += 1  # parked: not a reader that poke would look at
            if i < len(es):
                e = es[i]
                if first is None or e < first:
                    first = e
        if first is not None:
            end = min(end, lst.bisect_left(first))
        if end <= start:
            return 0
        passed = sorted(j for j in (lst.bisect_left(entry[k]) for k in ahead)
                        if start <= j < end)  # parked ones in the span: not looked at
        n = end - start - len(passed)
        if n > limit:  # the window ends at the limit-th woken reader
            j = start + limit - 1
            for i in passed:
                if i > j:
                    break
                j += 1
            end = j + 1
            passed = [i for i in passed if i < end]
            n = limit
        if n <= 0:
            return 0
        hi = lst[end - 1]
        exc = frozenset(lst[i][2].key for i in passed)
        ahead.difference_update(exc)  # behind the mark now: parked as before
        if self._ranges_gen != generation:
            self._ranges, self._ranges_gen = [], generation
        lo = mark if mark is not None else ()  # () sorts before every entry
        self._ranges.append((lo, hi, exc))
        self._mark = hi
        return n
