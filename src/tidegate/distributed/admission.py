"""When a queued task starts: the plugin's admission of parked and queued roots.

``poke`` (on each stimulus, and on the server's or the twin's tick) walks the queue in
priority order and starts what the books admit; roots waiting for a partner's worker are
parked on it and woken (``_wake``) when it frees a slot. The free sets (``_refresh``) keep
which workers are open for roots, from the workers each event touched.

A mixin of :class:`tidegate.distributed.hooks.Plugin`.
"""

from __future__ import annotations

import heapq
import itertools
from bisect import bisect_left, insort
import logging
from itertools import compress, filterfalse
import math
import operator

from dask.utils import key_split
from sortedcontainers import SortedDict

from . import restricted
from .. import policy as policy_module  # (SPLIT_OPENS read per call: tests set it)
from ..policy import (first_share_takes, footprint_refused, further_by_plan, holds_share,
                      split_gains, split_takes,
                      wave_share)
from .trim import _NoWorkers
from .tasks import _NO_MOVE, _dependencies, _of_group, _second, _where

# ``ts._state``: TaskState.state's slot, read without the property's Python frame on poke's
# paths (twin stack-sum 100 x 4: ~1 a task; tests/test_distributed_combines.py checks the
# property reads it)
_KEY = operator.attrgetter("key")
_PRIORITY = operator.attrgetter("priority")
_NONE_KEPT = itertools.repeat(False)  # (a root that did not stay: never its park entry)

logger = logging.getLogger("tidegate.distributed")

_MISSING = object()
WINDOW = 256  # queued roots examined per poke, at most
# Switch: a reader Broadcast.place holds at dask's decide_worker goes straight among the
# held readers at its waiting -> queued transition (Plugin._queued), not in line for poke's
# scan to take, place again and park. A decision change: the scan no longer counts it in
# its window, and its worker expects it (not idle) from the hold on. False: in line.
PARK_HELD_QUEUED = True


def _only_loads(book) -> bool:
    """Does the worker of ``book`` run roots and nothing else, on every thread
    (Admission._in_wave: loads started together end together)?"""
    return book.roots_processing >= book.threads and book.processing <= book.roots_processing


def _held(ts) -> bool:
    """Is ts's result in memory (policy.split_gains' ``held``)?"""
    return ts.state == "memory"


def _readers(ts) -> int:
    """How many tasks read ts (policy.split_gains' ``readers``)."""
    return len(ts.dependents)


class Admission:
    """Plugin's admission methods (state set up by Plugin.__init__ / Install._install)."""

    _blocked_tail = False  # (_blocked refused by TAIL_THREAD_FREE's filter: _refresh)
    _tail_asked = None  # (the root Placement._tail_listed filtered last)

    # -- workers open for roots -------------------------------------------------------------
    def _refresh(self, addr) -> None:
        """Look at one worker afresh: open for roots (books.may_take_some), free for roots
        without partners; wake the roots parked on it when it opens."""
        s = self.scheduler
        workers = s.workers
        ws = workers.get(addr)
        if ws is not None:
            # (every worker running: a worker is, without hashing its WorkerState in Python)
            running = s.running
            running = len(running) == len(workers) or ws in running
        else:
            running = False
        self._looked[addr] = running
        if running:
            books = self.books
            book = books.workers.get(addr)
            if book is None or not self._plain:
                book = self._measure(ws)
            else:
                book.held = ws.nbytes  # (_measure without a budget, without its calls: hot)
            # Whether the worker may take a root is the books' question (one rule for every
            # body: not inlined here); may_progress's own test below reads the fields once.
            if books.may_take_some(addr):
                if addr not in self._open:
                    self._open.add(addr)
                    self._epoch += 1
                processing = book.processing
                if self._blocked_tail and processing < book.threads \
                        and self._blocked is not None and policy_module.tail_wants_thread(
                            self._ready.roots_queued(), self.scheduler.total_nthreads):
                    # A thread free in the tail: the root TAIL_THREAD_FREE refused (no
                    # thread free then) is asked again now, not at the timer: a worker at
                    # its count frees a thread, not a slot, so nothing else moves the epoch
                    # (rev52m: delayed(sum) of 100 loads on 4 x 4 1.09-1.13x queue's time).
                    # Only for a root the tail's filter refused: other blocked roots (a
                    # stencil's count on 1 x 8) keep their own rules (LACKED_UNBLOCK).
                    self._epoch += 1
                idle = processing == 0 and addr not in books.expecting
                cap = book.cap
                flight = book.roots_processing + book.roots_untouched
                if idle or (flight < cap and book.held + book.estimated < book.budget):
                    # Free, least loaded first; unchanged (most looks): no call
                    threads = book.threads
                    key = ((flight + processing) / threads, addr)
                    if self._free_key.get(addr) != key:
                        self._set_free(addr, key)
                    count = (processing < threads or threads == 1,
                             flight + book.owed - cap)  # (policy.free_thread, inlined: hot)
                    if self._count.get(addr) != count:
                        self._set_count(addr, count)
                elif addr in self._free_key:
                    self._set_free(addr, None)
                if idle:
                    if self._uneven and addr not in self._idle and self._waiting_on \
                            and policy_module.IDLE_WAKE:  # fmt: skip
                        # Newly idle, paces apart: the roots parked for other workers are
                        # asked now (Placement._idle_takes), not at their worker's next
                        # event or the timer (IDLE_WAKE); addr counted idle while they are
                        self._idle.add(addr)
                        for k in [k for k in self._waiting_on if k != addr]:
                            self._wake(k)
                    self._idle.add(addr)
                else:
                    self._idle.discard(addr)
                if addr in self._waiting_on:
                    self._wake(addr)
                return
        self._open.discard(addr)
        self._idle.discard(addr)
        if addr in self._free_key:  # (a full worker mostly is not: no call)
            self._set_free(addr, None)

    def _set_free(self, addr, key) -> None:
        """addr is free for roots without partners with ``key`` ``(load, addr)``, or not
        (``key`` None)."""
        if key is None:
            old = self._free_key.pop(addr, None)
            if old is not None:
                del self._free[bisect_left(self._free, old)]
            if addr in self._count:
                self._set_count(addr, None)
            return
        old = self._free_key.get(addr)
        if old == key:
            return  # unchanged: no O(log n) remove and add
        if old is None:
            self._epoch += 1
        else:
            del self._free[bisect_left(self._free, old)]
        insort(self._free, key)
        self._free_key[addr] = key

    def _set_count(self, addr, count) -> None:
        """Free worker addr's ``(free_thread, slots used - cap)`` is ``count`` (None: it
        is free no more)."""
        counts = self._counts
        old = self._count.pop(addr, None)
        if old is not None:
            n = counts[old] - 1
            if n:
                counts[old] = n
            else:
                del counts[old]
        if count is not None:
            self._count[addr] = count
            counts[count] = counts.get(count, 0) + 1

    def _refresh_all(self) -> None:
        """Every worker looked at afresh (install, timer): held bytes can drop without a
        transition we see (a replica dropped, a client releasing data). The sets are
        updated in place, not rebuilt: most workers are as they were (at 1,000 workers
        a rebuild per tick re-sorted 1,000 entries)."""
        self._blocked = None
        changed = self.books.changed
        s = self.scheduler
        workers, running, books, looked = s.workers, s.running, self.books.workers, self._looked
        open_ = self._open
        before = len(looked)
        if self.memory_limit is None and len(running) == len(workers) \
                and isinstance(workers, SortedDict):  # fmt: skip
            known = self._refresh_some(workers, looked, changed)
        else:
            known = self._refresh_each(workers, running, books, looked, changed)
            if self.memory_limit is not None and self.books.largest_root != self._footprint_seen:
                self._check_footprint()  # (under a budget only: the other branch has none)
        if known < before:  # gone (dask may tell plugins late): forget them everywhere
            for addr in [a for a in looked if a not in workers]:
                del looked[addr]
                open_.discard(addr)
                self._idle.discard(addr)
                self._set_free(addr, None)
        changed.clear()

    def _refresh_some(self, workers, looked, changed) -> int:
        """_refresh_each's looks and wakes, found with set operations in C instead of a
        Python step per worker (1,000 workers: 15 bytecodes each per tick, 5% of the
        plugin's), then done in the workers' order (a SortedDict: sorted addresses).
        Without a budget and with every worker running, a worker needs a look when it is
        new, has no book, changed, or was not running when last looked at; one that does
        not may wake its parked roots. Returns the count of workers looked at before."""
        addrs = dict.keys(workers)  # (a SortedDict's own keys() is a Python view)
        open_, waiting = self._open, self._waiting_on
        if len(looked) == len(addrs) and all(looked.values()) and looked.keys() == addrs \
                and self.books.workers.keys() >= addrs:  # fmt: skip
            # The usual tick: every worker was looked at, running, and has a book. Then
            # only the changed ones need a look and only workers with parked roots may
            # wake: found from those, with three passes over the workers that build
            # nothing, not seven that build sets of them (1,000 workers: 0.8 ms a tick,
            # a third of the scheduler's CPU per task on the twin's running total).
            known = len(addrs)
            redo = set(filter(addrs.__contains__, changed))
            wake = set(filter(open_.__contains__, filter(addrs.__contains__, waiting)))
        else:
            known = len(addrs & looked.keys())
            redo = (addrs - looked.keys()) | (addrs - self.books.workers.keys()) \
                | (addrs & changed) \
                | (addrs & set(compress(looked, map(operator.not_, looked.values()))))  # fmt: skip
            wake = addrs & open_ & waiting.keys()
        for addr in sorted(redo | wake):
            if addr in redo:
                self._refresh(addr)
            elif addr in open_ and addr in waiting:  # (a wake before may have emptied it)
                self._wake(addr)
        return known

    def _refresh_each(self, workers, running, books, looked, changed) -> int:
        """Every worker looked at in turn (see _refresh_all); returns the count of
        workers looked at before."""
        open_, waiting, inf = self._open, self._waiting_on, math.inf
        known = 0  # workers looked at before: fewer than ``before`` means some are gone
        for addr, ws in workers.items():
            was = looked.get(addr)
            if was is not None:
                known += 1
            # Without a budget held bytes decide nothing: a worker still running, whose
            # books did not change since it was last looked at, would be found as it was
            # (1,000 workers: a full look per tick cost more than the transitions). The
            # cheap tests come first: ``ws in running`` hashes a WorkerState in Python.
            if was and addr not in changed:
                book = books.get(addr)
                if book is not None and book.budget == inf and ws in running:
                    if addr in open_ and addr in waiting:
                        self._wake(addr)
                    continue
            self._refresh(addr)
        return known

    def _update(self) -> None:
        """Re-examine the workers whose books changed since the last look: O(changed)."""
        changed = self.books.changed
        refresh = self._refresh
        while changed:
            refresh(changed.pop())

    def _free_iter(self):
        """Workers free for roots, least loaded first, lazily: a placement looks at those
        it passes over, not the cluster. One that paused or left since is skipped (dask
        tells plugins of removal late and of pausing not at all)."""
        s = self.scheduler
        running, workers = s.running, s.workers
        if len(running) == len(workers):
            # Every worker runs (dask's running is a subset of its workers): one that is
            # still a worker is running, found in C without hashing a WorkerState in
            # Python per worker passed (a root reading shared weights passes every free
            # worker: twin weighted, 100 workers, 38 per task).
            return filter(workers.__contains__, map(_second, self._free))
        return (addr for _, addr in self._free if workers.get(addr) in running)

    # -- parked tasks -------------------------------------------------------------------------
    def _park(self, ts, on) -> None:
        self._ready.discard(ts)
        self._parked[ts] = on
        if on and not isinstance(on[0], tuple):
            entry = self._kept_cache.get(ts.key)  # (self._kept inlined: parks are many)
            first = entry[1] if entry is not None and entry[0] is ts else self._kept(ts)
            if first is not None and self._splits(ts):
                # (asked at each park: sizes are learnt meanwhile)
                self._parked_kept[ts] = None
        self._parked_ts[ts.key] = ts
        for k in on:
            w = self._waiting_on.get(k)
            if w is None:
                w = self._waiting_on[k] = set()
            w.add(ts)

    def _unpark(self, ts):
        self._parked_kept.pop(ts, None)
        self._first_parked.pop(ts, None)
        on = self._parked.pop(ts, ())
        self._parked_ts.pop(ts.key, None)
        for k in on:
            w = self._waiting_on.get(k)
            if w is not None:
                w.discard(ts)
                if not w:
                    del self._waiting_on[k]
        return on

    def _wake(self, k) -> None:
        """What tasks parked on ``k`` waited for may have happened: back in line. Roots
        whose data feeds many meetings stay parked on a worker that could admit none
        (books.may_take_spread): nothing their walk would find there can change that.

        A root parked on its further meeting's busy worker (``_further_parks``) stays
        parked while k refuses it (:meth:`_still_waits`). One that stayed is not asked
        again while what that refusal reads of k is as it was then
        (``books.refusal_inputs``) and some worker is free for roots: k's books change at
        every task end there, and most ends free no slot a root could take (twin
        rechunk-add 500 steps 100x4: 4,238 of 6,450 asks met k so). Not asked so, a
        change of the root's own side (its group's estimate, the roots it would open, a
        reservation on k) waits for k's next change: a decision change in principle
        (none seen in the twin's runs; bench/results/park30-findings.txt)."""
        books = self.books
        parks = self._further_parks
        waiting = self._waiting_on.get(k, ())
        if parks:
            # k's refusals during this wake, by what refuses_further's answer reads of a
            # root (nothing in the books changes meanwhile): roots parked on one worker
            # mostly ask alike (twin rechunk-add 100x4: 3,705 of 6,050 asks repeated one
            # in their wake)
            memo: dict = {}
            sig = books.refusal_inputs(k)
            stays = self._stays.get(k)
            if k not in self._open:  # (leaving: remove_worker wakes its roots)
                self._stays.pop(k, None)
                stays = (sig, {})
            elif stays is None or stays[0] != sig or not self._free:
                stays = self._stays[k] = (sig, {})  # {root: its park entry then}
            elif all(map(operator.is_, map(stays[1].get, waiting, _NONE_KEPT),
                         map(parks.get, map(_KEY, waiting)))):  # fmt: skip
                # Every root parked on k stayed so, as it is (found in C: the timer wakes
                # every open worker with parked roots)
                if not books.audit:
                    return
                for ts in waiting:  # (tests: each would be passed over below)
                    assert stays[1][ts] is parks[ts.key], (ts.key, k)
                self._audited("stays kept, all")
            stayed = stays[1]
        spread_ok = k not in books.workers or books.may_take_spread(k)
        for ts in list(waiting):
            if not spread_ok and self._spread(ts):
                continue
            if parks:
                kept = parks.get(ts.key)
                if kept is not None:
                    if stayed.get(ts) is kept:
                        if books.audit:  # (tests: k still refuses it, but by its own side)
                            self._audit_stayed(ts, k, kept)
                        continue
                    if self._still_waits(ts, k, kept, memo):
                        stayed[ts] = kept
                        if books.audit:
                            self._stay_sides[ts.key, k] = self._root_side(ts, k, kept)
                        continue
            self._unpark(ts)
            if ts._state == "queued":  # (TaskState.state's slot: no property call)
                self._ready.add(ts)

    def _still_waits(self, ts, k, kept, memo=None) -> bool:
        """Does root ts, parked on its further meeting's busy worker k (``kept``: its
        ``_further_parks`` entry), stay parked there? Yes while books.refuses_further says
        k refuses it (k busy and open for roots: not leaving), some worker is free for
        roots and no limit applies (else poke's scan may place it otherwise). It then stays parked,
        not woken to be placed and parked again (twin rechunk-add: once a task end, ~900 plugin
        bytecodes a task). Asked when k's books change (:meth:`_wake`), not in poke's scan: what
        changes elsewhere before the scan reaches it (another root started, its lacks placed) is
        seen at k's next change; a decision change (see bench/results/cpu26-findings.txt).
        What else its placement read is asked once k admits it (``_waits_again`` or
        ``_decide``, placing it): its walks (a task they looked at moved: the other side's
        load starting, a further meeting refreshed), the hint's other workers, a broadcast
        input. Until session 29 asked here too (_kept_walk with its refreshes, the hint,
        restricts: ~200 plugin bytecodes an ask) and in the twin's runs never the answer
        while k refused: in principle a decision change, a root whose further meeting
        moved to another worker waits for k (bench/results/park30-findings.txt).
        ``memo``: books.refuses_further's, for the roots asked in one wake of k."""
        if kept[0] is not ts or not self._free or ts._state != "queued" or self.limits.caps \
                or k not in self._open:  # fmt: skip
            return False  # (limits: poke's scan may park it on a full limit instead)
        plan = kept[3]
        if not plan.pair:
            return False
        refused = self.books.refuses_further(ts.key, ts.group.name, k, kept[2], plan.further,
                                             True, memo)  # fmt: skip
        if refused and self.books.audit:
            self._audit_walks(ts, k, kept)
        return refused

    def _root_side(self, ts, k, kept) -> tuple:
        """What books.refuses_further reads of root ts parked on k (tests' audit)."""
        books = self.books
        return (books.estimate(math.nan, ts.group.name),
                books.opens(kept[2]) if kept[3].further else 0,
                books.owed.get(ts.key, (None,))[0] == k)

    def _audit_stayed(self, ts, k, kept) -> None:
        """(tests) Root ts, not asked again at k's wake (_wake: k as at its last ask, when
        it stayed): k still refuses it, unless its own side changed meanwhile (then the
        ask would have woken it: counted, a decision change)."""
        books = self.books
        self._audited("stays kept")
        if not books.refuses_further(ts.key, ts.group.name, k, kept[2], kept[3].further, True):
            assert self._root_side(ts, k, kept) != self._stay_sides[ts.key, k], (ts.key, k)
            self._audited("stays kept, its side moved")

    def _audit_walks(self, ts, k, kept) -> None:
        """(tests) Root ts stays parked on k, which refuses it: would the asks made before
        session 30 (_kept_walk: its walks unmoved, or only its further meeting's moved and
        found anew; k the one open worker of that hint; no broadcast input) have woken
        it? Counted, not asserted (a decision change by design); found as _kept_walk
        would, without its side effects (no walk dropped or refreshed here)."""
        self._audited("stays refused")
        entry = self._walks.get(ts.key)
        if entry is not kept[1] or entry[0] is not ts:
            self._audited("stays refused, walks moved")
            return
        further = entry[1][1]
        looked = entry[3]
        if looked and max(map(self._moves.get, looked, _NO_MOVE)) > entry[2]:
            walked, looked = self._looked_at(ts, kept[3], True) if further is not None \
                else (None, None)  # fmt: skip
            if walked is None or looked is None \
                    or (walked and max(map(self._moves.get, walked, _NO_MOVE)) > entry[2]):
                self._audited("stays refused, walks moved")
                return
            further = further_by_plan(self._further_plan(ts, kept[3]), _where, self._size)
        hint, whole = further
        open_ = self._open
        if not whole or not hint.get(k, 0) > 0 or any(w != k and w in open_ for w in hint) \
                or self._broadcast.restricts(self.scheduler, ts):  # fmt: skip
            self._audited("stays refused, hint or input moved")

    def _spread(self, ts) -> bool:
        """Does root ts's data feed many meetings (its kept plan's ``spread``)?"""
        entry = self._plans.get(ts.key)
        return entry is not None and entry[0] is ts and entry[1].spread

    def _wake_lacked(self, lacks) -> None:
        """A root just placed is a new partner of the roots its meetings lack
        (``lacks``): those parked for their data's many meetings look again, on their
        new partner's worker too (left parked on their old partners' workers, which could
        admit none, a block waited for them while a neighbour's worker ran dry: twin
        stencil 4x1, idle 0.16 s in long waits against queuing's 0.07)."""
        for k in lacks:
            ts = self._parked_ts.get(k)
            if ts is not None and ts.state == "queued" and self._spread(ts):
                self._unpark(ts)
                self._ready.add(ts)
        blocked = self._blocked
        if blocked is not None and policy_module.LACKED_UNBLOCK and blocked[0].key in lacks \
                and self._spread(blocked[0]):  # fmt: skip
            # (policy.LACKED_UNBLOCK: the scan's blocker, a spread root refused for want of
            # partners, has one now: the next scan asks it, not the next worker freeing)
            self._blocked = None

    def _check_idle_saturated(self, ws, occ: float = -1.0) -> None:
        """Installed only under a budget."""
        s = self.scheduler
        self._check_idle(ws, occ)
        if ws.processing and self.memory_limit is not None and ws.address in s.idle:
            book = self._measure(ws)  # (no budget: never over it)
            if book.held + book.estimated >= book.budget:
                s.idle.pop(ws.address, None)

    def _tick(self) -> None:
        """The live scheduler's timer: notice an unregistered plugin, else poke."""
        s = self.scheduler
        if s is None:
            return
        name = self._registered
        if name is None:
            name = self._registered = next((n for n, p in s.plugins.items() if p is self), None)
        elif s.plugins.get(name) is not self:
            self.uninstall()  # removed without remove_plugin (e.g. del plugins[name])
            return
        try:
            if not self._whole:  # a rebuild after an error failed: try again, once a tick
                self._resync()
            self._refresh_all()
            self._copies.wake()  # a held reader's worker may have paused
        except Exception as exc:  # (tornado would log it at every tick)
            self._error("tick", exc)
        self.poke(f"tidegate-poke-{next(self._pokes)}")

    def _check_footprint(self) -> None:
        """Can the smallest budget hold the largest root result seen (policy.
        footprint_refused, the check the thread runtime makes before it runs)? Said once per
        task group, when the largest result grows (the timer looks: no cost per task). Such
        a root starts only on an idle worker, one at a time."""
        books = self.books
        largest = self._footprint_seen = books.largest_root
        if not books.workers or not largest:
            return
        budget = min(b.budget for b in books.workers.values())
        ts = books.largest_root_task
        key = getattr(ts, "key", ts)
        refused = footprint_refused(budget, largest, key, "result")
        if refused and ("footprint", key_split(key)) not in self._logged:
            self._logged.add(("footprint", key_split(key)))
            logger.warning("tidegate: %s (roots that large start only on an idle worker, "
                           "one at a time)", refused)

    def poke(self, stimulus_id: str) -> None:
        """Start queued roots that may start now, best priority first.

        Cost: the workers whose books changed since the last look are re-examined (the
        timer looks at all), waking the roots parked on those that opened; then, per queued
        root not parked, its partners' workers plus free workers in load order until one
        admits. A root that waits for a partner's busy worker is parked on it (not looked
        at again until that worker opens); the scan stops at a root with no partners that
        nobody admits (later roots would wait for the same slots) and after ``WINDOW``
        roots."""
        s = self.scheduler
        try:  # (installed as dask's method itself, no wrapper: everything under the try)
            self._queue_new = False
            # (dask's queue, a HeapSet: its set's truth read in C, not through
            # HeapSet.__len__, a Python frame once per stimulus; else: itself)
            if s is None or not (getattr(s.queued, "_data", s.queued) or self._held) \
                    or not s.running:  # fmt: skip
                return
            if not self._whole:  # books half rebuilt (_resync failed): dask releases
                self._dask_stimulus(s, stimulus_id)
                return
            self._poke(s, stimulus_id)
        except Exception as exc:
            if s is None:
                raise
            self._failed("poke", exc)
            if self._batch is not None:
                self._end_batch(s)  # (starts made before the error: before dask's sends)
            self._dask_stimulus(s, stimulus_id)

    def _end_batch(self, s) -> None:
        """Send the starts poke made (``_start`` over dask's own transitions: each start
        ran dask's ``_transitions`` at once, the next placement reads its worker's
        processing; only its messages waited). _poke calls this where its starts end:
        after the tiny tasks' starts, and in its scan's ``finally`` (an error: before
        dask's fallback sends its own). The same messages, each worker's in the same order, the
        workers' streams first written in the same order (a dict keeps the first start's
        worker first), as dask's own handlers send a stimulus's messages together; a
        copy's message (Broadcast's own send) sends the starts before it first
        (``_flush_starts``). Why: one Scheduler.transitions and send_all per start (twin
        anomaly 100 x 4: 0.59 a task, ~40 bytecodes each). dask's own queue release
        (stimulus_queue_slots_maybe_opened) calls transitions once per queued task."""
        try:
            self._flush_starts()
        except Exception as exc:  # (dask's own send_all logs comm errors itself)
            self._error("poke", exc)
        finally:
            self._batch = None

    def _flush_starts(self) -> None:
        """Send the starts poke made so far (before a copy's message: the order a worker
        receives them in stays as without the batch)."""
        batch = self._batch
        if batch is not None and (batch[0] or batch[1]):
            self._batch = ({}, {})
            self.scheduler.send_all(batch[0], batch[1])

    def _dask_stimulus(self, s, stimulus_id) -> None:
        """dask's own queue release, for one call, with dask's own methods throughout."""
        stimulus = getattr(type(s), "stimulus_queue_slots_maybe_opened", None)
        if stimulus is None:
            return  # a bare SchedulerState: its driver releases the queue
        self._fallback = True
        s.idle_task_count = set()
        ours = s.__dict__.get("check_idle_saturated", _MISSING)
        s.check_idle_saturated = self._orig["check_idle_saturated"]  # keeps it throughout
        try:
            for ws in s.workers.values():
                s.check_idle_saturated(ws)  # refills dask's idle_task_count
            stimulus(s, stimulus_id=stimulus_id)
        finally:
            self._fallback = False
            if ours is _MISSING:
                del s.check_idle_saturated
            else:
                s.check_idle_saturated = ours
            s.idle_task_count = _NoWorkers()
            for ws in s.workers.values():
                s.check_idle_saturated(ws)

    def _poke(self, s, stimulus_id) -> None:
        if self._tiny_pending:  # (queued tasks that are no roots now: Plugin._tiny_seen)
            pending, self._tiny_pending = self._tiny_pending, []
            for t in pending:
                if t.state == "queued":
                    ws = s.decide_worker_non_rootish(t)
                    if ws is not None:
                        self._start(t, ws, stimulus_id)
                    else:
                        self._ready.add(t)
            if self._batch is not None:
                self._end_batch(s)  # (before release's own sends, or a return below)
        if self._held:
            restricted.release(self, s, stimulus_id)
        copies = self._copies
        b = self._broadcast
        if copies._entry and copies.any_parked() and b.generation != self._copies_seen:
            self._copies_seen = b.generation
            copies.wake()  # a copy started, landed or was dropped: held readers may go
        books = self.books
        changed = books.changed
        if changed:  # (_update inlined: once a message)
            refresh = self._refresh
            while changed:
                refresh(changed.pop())
        limited = bool(self.limits.caps)  # (self.limits read again where limited: rare)
        held = limited or (bool(b.flight) and b.active)  # queued non-roots to look at
        # (_still_blocked's first test asked here: without a blocker, no call)
        if not held and (not self._open or (not copies._entry and self._blocked is not None
                                            and self._still_blocked())):  # fmt: skip
            return
        # Tasks a full limit withholds are parked on it (they never block other work);
        # roots stop at the first that cannot be placed, but with limits the scan goes on
        # (limited non-roots would not wait for roots) for a bounded number of tasks.
        # Once roots are blocked only the other queued tasks are looked at: walking the
        # roots to find them cost 1,000 roots per task end (twin vorticity, 100 workers,
        # readers of the grids held for copies: 2x the scheduler's CPU).
        ready = self._ready
        kept = None  # _look_held's blocker and bulk look, kept in this scan (made there)
        skipped = []  # looked at, neither placed nor parked: back in line afterwards
        examined = looked = 0
        roots_blocked = not self._open
        try:
            while examined < WINDOW and looked < 4 * WINDOW:
                if roots_blocked and not held:
                    break
                ts = ready.best(roots=not roots_blocked)
                c = copies.first() if copies._entry else None  # (no __len__ call: hot)
                if c is not None and (ts is None or c.priority < ts.priority):
                    # Woken readers held for a copy are next. Each that gate would hold
                    # again as it is (nearly always) is looked at here as below would
                    # (counted, held anew) without leaving its line; the first other one
                    # is left to below.
                    if not limited:
                        if kept is None:
                            kept = [None, None, None]
                        c, looked, examined = self._look_held(
                            s, ts, looked, examined, kept)  # fmt: skip
                        if c is None:
                            continue
                        # (a held reader the look met: Held.discard's membership test
                        # answers yes)
                        copies.discard_key(c.key, b.held, b.generation)
                        if c._state == "queued" and (held or not roots_blocked) \
                                and self._is_root_cache.get(c.key) is False:  # fmt: skip
                            # (_placed_held: what the next step below does with c)
                            looked, examined = self._placed_held(
                                s, c, looked, examined, skipped, stimulus_id)  # fmt: skip
                        elif c._state == "queued":
                            ready.add(c)
                        continue
                    copies.discard(c, b.held, b.generation)
                    if c._state == "queued":
                        ready.add(c)
                    continue
                if ts is None:
                    break
                if ts._state != "queued":
                    ready.discard(ts)  # left the queue (stolen by a fallback, forgotten)
                    continue
                looked += 1
                names = self._limit_names(ts) if limited else ()
                if names:
                    full = self.limits.full(names)
                    if full is not None:
                        self._park(ts, (("limit", full),))
                        continue
                root = self._is_root_cache.get(ts.key)  # (_root's cache first: hot)
                if not (self._root(ts) if root is None else root):
                    # limited, or reads a shared input not yet everywhere
                    examined += 1
                    b = self._broadcast
                    ws = b.place(s, ts, s.decide_worker_non_rootish, stimulus_id)
                    if ws is not None:
                        self._start(ts, ws, stimulus_id)
                    elif b.held.get(ts.key, (None, -1))[1] == b.generation:
                        # Held until a copy starts or lands (asked before, it would be held
                        # again): parked, not walked at every task end.
                        ready.discard(ts)
                        copies.park(ts, b.held[ts.key][0], b.sig(ts))
                        continue
                    if ts in ready:
                        ready.discard(ts)
                        skipped.append(ts)
                    continue
                blocked = self._blocked
                if blocked is not None and blocked[0] is ts and blocked[1] == self._epoch:
                    roots_blocked = True
                    continue
                examined += 1
                addr, partners = self._place(ts, stimulus_id)
                if addr is None:
                    on = tuple(filter(books.workers.__contains__, partners))  # (in C: hot)
                    if on:
                        self._park(ts, on)  # until a partner's worker opens
                        continue
                    if self._first_parked:  # (parked by no one: rev50m)
                        self._first_parked.pop(ts, None)
                    roots_blocked = True  # later roots would wait for the same slots
                    self._stalled = True
                    if not self._free:
                        self._blocked = (ts, self._epoch, ready.added)
                        # (refused by TAIL_THREAD_FREE's filter: _refresh asks it again
                        # when a thread frees in the tail)
                        self._blocked_tail = self._tail_asked is ts
                    continue
                ws = s.workers.get(addr)
                if ws in s.running:
                    self._start(ts, ws, stimulus_id)
                    self._wake_lacked(self._lacked)
                    if self._stalled or self._wave is not None:
                        self._in_wave(s, addr, ts.key)
                if ts in ready:  # a partner's worker that is leaving
                    ready.discard(ts)
                    skipped.append(ts)
                self._update()
                if not self._open:
                    roots_blocked = True
            if roots_blocked and self._offered and books.owed and self._free_key \
                    and self._blocked is not None and self._blocked[0] is ready.best():  # fmt: skip
                examined = self._owed_first(s, examined, stimulus_id)
            if (self._idle or (self._free and self._parked_kept)) and self._parked \
                    and not ready.has_roots() \
                    and examined < WINDOW and looked < 4 * WINDOW:  # fmt: skip
                self._split(s, stimulus_id)
            elif self._first_parked and self._free and not ready.has_roots() \
                    and examined < WINDOW and looked < 4 * WINDOW:  # fmt: skip
                self._first_split(s, stimulus_id)
        finally:
            for ts in skipped:
                if ts._state == "queued" and ts not in self._parked and ts not in copies:
                    ready.add(ts)
            if self._batch is not None:
                self._end_batch(s)  # (poke's starts: one send)

    def _in_wave(self, s, addr, key) -> None:
        """Root ``key`` placed on ``addr`` by poke's scan. The first after a stall (a root
        without partners nobody took) begins a wave where the line is shorter than the
        cluster's threads and every other worker's threads load roots (loads started
        together end together): each worker's share of the line then (policy.wave_share),
        and each root placed counts against its worker's. The wave ends when every running
        worker took its share, the line holds no root, or a root of the wave finishes
        (``_left_processing``: a whole load passed since it began). O(1) a root but
        its first, O(workers) at most there."""
        self._stalled = False
        wave = self._wave
        ready = self._ready
        if wave is None:
            line = ready.roots_queued() + 1
            if line >= s.total_nthreads or not policy_module.WAVE_SHARE:
                # (a line that feeds every thread needs no share: begun at 4 x 3 / 96's
                # first stall, a share of 21 held the whole run, and at its end a worker
                # that took it idled while a slower one took the last roots: 1.014 ->
                # 1.034x queuing's makespan)
                return
            books = self.books.workers
            # (the worker found last not only loading roots asked first: where one such
            # worker among many stays so, each root after a stall looks at it alone)
            last = books.get(self._wave_not)
            if last is not None and self._wave_not != addr and not _only_loads(last):
                return
            for a, book in books.items():
                if a != addr and not _only_loads(book):
                    self._wave_not = a
                    # (some other worker does not only load roots: no wave that starts
                    # together, the tail of a line. Begun where the others' threads all
                    # loaded, with combines queued there, loaders 4 x 4 / 48 took 1.027 ->
                    # 1.164x queuing's makespan: those workers had just started their
                    # loads and took no root for 0.2 s; begun anywhere, 16 of the plugin
                    # fingerprints' 62 traces moved)
                    return
            # [share, {address: roots taken}, {addresses that took their share}, keys,
            #  the most threads of a worker that took its share]
            wave = self._wave = [wave_share(line, len(s.running)), {}, set(), set(), 0]
        taken = wave[1]
        n = taken[addr] = taken.get(addr, 0) + 1
        if n >= wave[0]:
            wave[2].add(addr)
            book = self.books.workers.get(addr)
            if book is not None and book.threads > wave[4]:
                wave[4] = book.threads
        wave[3].add(key)
        if len(wave[2]) >= len(s.running) or not ready.has_roots():
            self._wave = None

    def _owed_first(self, s, examined: int, stimulus_id) -> int:
        """The scan stopped at a root nobody may take (``_blocked``: no worker free for
        roots when it was asked, and it is still the best queued): a root reserved
        (``books.owed``) on a worker now free for roots is asked out of line when its
        opener was one of dask's own offers of a new graph (``_offered``: dask transitions
        a graph's roots in an order its sets decide, so a root of the last pairs can open
        a meeting first), its opener's data is loaded and waits for it, a thread of that
        worker is idle, and it lacks no other root and feeds few meetings (it opens none).
        Its slot is counted already (reserved), so starting it takes none more. Left in
        line behind the blocked head, it waited for the queue to reach it in priority
        order, and its opener's data and the reservation held two of a 2-thread worker's
        three slots the whole run (twin open -> read -> select 2 x 2: one thread idle
        through every combine, 1.25-1.45x queuing's makespan; stack-sum 2 x 2 1.09-1.17x).
        Without the first three conditions (session 24's form) it also moved vorticity,
        whose openers start in line or whose blocked head waits for other reasons (sim
        fingerprints' vorticity 8x2 3.08 -> 3.50 s). Returns the examined count."""
        books, ready, free = self.books, self._ready, self._free_key
        tasks = s.tasks
        for r, (w, opener) in list(books.owed.items()):
            if examined >= WINDOW:
                break
            if w not in free or r not in books.owed:
                continue
            ts = tasks.get(r)
            if ts is None or ts._state != "queued" or ts not in ready:
                continue
            if not books.data_waits(opener):
                # Its opener still loads (or its data went): the pair goes on in line as
                # usual (asked out of line then too, sim fingerprints' store-form
                # vorticity 4x2 took 1.13x the time; 1.02x with this).
                continue
            if opener not in self._offered:
                continue  # its opener started in line: so does it, soon after
            wst = s.workers.get(w)
            if wst is None or len(wst.processing) >= wst.nthreads:
                # No thread of its worker waits for it: started now, it would only
                # queue there beside the roots in line (twin stack-sum, offset-slices
                # and rechunk 2 x 2: one more 8 MB block held, no time gained)
                continue
            examined += 1
            plan = self._plan(ts)
            if plan.meetings:
                lacks, spread = self._walk(ts, plan)[1::3]
                if lacks or spread:
                    # It would open meetings of its own (a stencil's neighbour block:
                    # out of line, it pulled in more, twin stencil 20x4 peak 1.30x).
                    continue
            addr, _ = self._place(ts, stimulus_id)
            if addr is None:
                if self._first_parked:  # (it stays in line, parked by no one: rev50m)
                    self._first_parked.pop(ts, None)
                continue
            ws = s.workers.get(addr)
            if ws in s.running:
                self._start(ts, ws, stimulus_id)
                self._wake_lacked(self._lacked)
            if ts in ready:
                ready.discard(ts)
                if ts.state == "queued":
                    ready.add(ts)
            self._update()
        return examined

    def _placed_held(self, s, c, looked, examined, skipped, stimulus_id):
        """Queued reader ``c``, just taken out of the held readers (``Held``) by poke's look
        (``_look_held``: it may go, or its worker left), placed as poke's next step would
        place it: put back in line, c is that step's task (better than the best in line:
        the look's bound; a reader is no root, the cache says), the next held reader is not
        (worse than c), and the step counts it, asks ``Broadcast.place`` (``looked``: the
        look found gate may let it go there) and starts, parks or sets it aside as below.
        The same, without the line's add, best and discard and a ``first()`` (its mark
        moves at the next ask instead: the same readers woken). Why: each reader of the
        anomaly's mean goes so once (twin anomaly 100 x 4: 491 times, ~170 bytecodes each).
        Returns ``(looked, examined)``."""
        looked += 1
        examined += 1
        b = self._broadcast
        ws = b.place(s, c, s.decide_worker_non_rootish, stimulus_id, True)
        if ws is not None:
            self._start(c, ws, stimulus_id)
        elif b.held.get(c.key, (None, -1))[1] == b.generation:
            self._copies.park(c, b.held[c.key][0], b.sig(c))  # (not in line: no discard)
            return looked, examined
        else:
            skipped.append(c)  # (in line, below it is taken out and set aside)
            return looked, examined
        ready = self._ready
        if c in ready:  # (as below: a start dask refused, back in line)
            ready.discard(c)
            skipped.append(c)
        return looked, examined

    def _still_blocked(self) -> bool:
        """Would poke's scan stop at its first root, the one nobody could take last time
        (``_blocked``)? Yes while no worker opened or became free since and that root is
        still the best queued task. Asked only when nothing but roots waits (no limits,
        copies or held readers), so the scan would have ended there too. Why: on the twin's
        stack-sum 8 pokes in 10 (one per task end) found just that, through the scan's
        setup (100 bytecodes a poke)."""
        blocked = self._blocked
        if blocked is None or blocked[1] != self._epoch:
            return False
        ready, ts = self._ready, blocked[0]
        if blocked[2] == ready.added:
            # Nothing queued since ts was found the best: taking tasks out of line makes
            # none better, so it still is while it is in line (no look at both lines'
            # heads: 80 bytecodes a poke on the twin's stack-sum).
            return ts._state == "queued" and ts in ready
        if ready.best() is ts and ts._state == "queued":
            self._blocked = (ts, self._epoch, ready.added)  # the best again: from now on
            return True
        return False

    def _split(self, s, stimulus_id) -> None:
        """Every queued root left waits for a partner's busy worker while some workers have
        nothing processing: the best waiting roots start there, one per idle worker. Their
        data meets its partners' by a transfer, but waiting idles a thread with nothing
        else to run: the zarr anomaly at 2x1 loaded a whole partial mean's chunks on one
        worker while the other idled (twin: peak 448 MB, 4.5 s against queuing's 416 MB,
        3.9 s). With policy.SPLIT_THREADS as many roots are chosen as the idle workers have
        threads; those that find every idle worker given one go to :meth:`_split_threads`.
        Cost: O(parked) when it applies (the queue is down to waiting roots)."""
        running, workers, books = s.running, s.workers, self.books
        idle = sorted(a for a in self._idle if workers.get(a) in running
                      and books.workers.get(a) is not None
                      and books.workers[a].processing == 0)  # fmt: skip
        anew = ()
        if idle and policy_module.SPLIT_KEPT_ANEW:
            # Parked before their reduction's first task returned, _splits was asked then:
            # asked again, as _park would now (SPLIT_KEPT_ANEW). Kept from now on, such a
            # root may start on a busy worker holding less; on an idle worker it starts
            # unless that worker holds its even share of the roots' group and more than
            # another (policy.holds_share, _heavier): one holding a group's loads took
            # another group's load there, 3 loads against 2 (twin seed anomaly 6 x 2).
            kept_ = self._parked_kept
            anew = [ts for ts, on in self._parked.items()
                    if ts not in kept_ and on and not isinstance(on[0], tuple)
                    and ts.state == "queued" and self._splits(ts)]  # fmt: skip
            for ts in anew:
                kept_[ts] = None
        # Roots waiting for their own reduction (policy.waits_for_own_reduction) may also
        # start on a busy worker open for roots, least loaded first: their loads stay
        # where they are loaded until the reduction is whole, so waiting for the
        # partners' worker piles them there.
        free = [a for a in self._free_iter() if a not in self._idle] \
            if self._parked_kept else []  # fmt: skip
        if not idle and not free:
            return
        if idle:
            waiting = [ts for ts, on in self._parked.items()
                       if ts.state == "queued" and on and not isinstance(on[0], tuple)]
        else:
            waiting = [ts for ts in self._parked_kept if ts.state == "queued"]
        # Workers given a root here (processing now, so passed over below): skipped in C,
        # not met again by every later root (1,000 idle workers: quadratic, 8% of the
        # plugin's bytecodes on the twin's anomaly).
        taken: set = set()
        least: dict = {}  # _heavier's least-held worker, while no root starts here
        parks, owed = self._further_parks, books.owed
        opening = bool(parks) and bool(policy_module.SPLIT_OPENS)

        def opens(t) -> bool:
            # Parked for its further meeting only, its own meeting not opened (reserved
            # nowhere): started on an idle worker it opens its meeting there whole, where a
            # root whose partner is placed would split its meeting (policy.SPLIT_OPENS).
            return opening and t.key in parks and t.key not in owed

        best = (lambda t: (not opens(t), t.priority)) if opening else _PRIORITY
        # (policy.SPLIT_THREADS: as many roots as the idle workers have threads)
        more = [] if policy_module.SPLIT_THREADS and idle else None
        chosen = heapq.nsmallest(
            len(free) + (len(idle) if more is None else sum(
                books.workers[a].threads for a in idle)), waiting, key=best)  # fmt: skip
        # (the parks they had, for one woken by an earlier start here: policy.SPLIT_WOKEN)
        parked = self._parked
        was = {ts: parked[ts] for ts in chosen} if policy_module.SPLIT_WOKEN else None
        for ts in chosen:
            lacks: set = set()
            kept = ts in self._parked_kept
            partners, allowed = self._broadcast.restrict(
                s, ts, self._partners(ts, lacks, {}, None),
                idle + free if kept else idle, stimulus_id)  # fmt: skip
            # A root that opens its meeting (its partner waits on no busy worker) splits
            # nothing: split_gains is not asked of it.
            on = parked.get(ts)  # (None: unparked by an earlier start's _update)
            if on is None and was is not None and ts._state == "queued" and ts in self._ready:
                on = was[ts]  # woken into line by that start: still split as parked
            if not kept and not opens(ts) and (on is None or not split_gains(
                    self._plan(ts).meetings, _dependencies, _held, _readers,
                    self._saturated(s, on))):  # fmt: skip
                continue  # its partner is still to be computed there: it waits for it
            for addr in filterfalse(taken.__contains__, allowed):
                book = books.workers.get(addr)
                if book is None or (book.processing and not kept):
                    continue
                if kept and (not anew or ts not in anew or addr not in idle or holds_share(
                        _of_group(workers[addr], ts.group), len(ts.group), len(running))) \
                        and self._heavier(ts, addr, least):  # fmt: skip
                    continue  # it waits for a worker holding less (_by_held)
                got = self._start_on(ts, addr, lacks, workers, stimulus_id)
                if got is not None:
                    least.clear()  # (its worker's books changed)
                    taken.add(got)
                break
            else:
                # (every idle worker took one: a root waiting for its own reduction may take
                # a second thread, its load stays for the reduction wherever it loads; a
                # pair's root would split its meeting: twin rechunk-add 20 x 4 under a
                # memory limit, bytes moved 3.0 -> 4.2 GB)
                if more is not None and not kept and self._kept(ts) is not None:
                    more.append((ts, allowed, lacks))
        if more:
            self._split_threads(s, more, idle, stimulus_id)

    def _first_split(self, s, stimulus_id) -> None:
        """No root is left in line, none parked for an idle worker's split: the roots
        parked by the first wave's share (Placement._first_share, ``_first_parked``), best
        first, each start on the free worker, least loaded first, with a thread free that
        holds fewer than its even share of the root's task group
        (policy.first_share_takes); a root woken back into line by an earlier start here is
        still asked. They waited for their reduction's first sizes; with nothing left to
        run, the threads they would take idle meanwhile. Cost: O(first-parked x free
        workers), only where it applies."""
        workers, running = s.workers, len(s.running)
        first, ready = self._first_parked, self._ready
        cands = self._thread_free()
        if not cands:
            return
        for ts in sorted(first, key=_PRIORITY):
            if ts._state != "queued" or (ts not in self._parked and ts not in ready):
                first.pop(ts, None)  # (not parked by it now: started, never parked)
                continue
            if self._broadcast.restricts(s, ts):
                continue  # (it waits for a copy's worker, as in _split)
            # (woken by an earlier start here, back in line: still asked here, or it waits
            # for the next poke, a load late: twin anomaly 12 steps 2 x 8, the second of
            # a group's two parked loads woken by the first's start on w0)
            group, size = ts.group, len(ts.group)
            # (its partners' workers too: the one it waits for holds the share)
            for addr, book in cands:
                if not first_share_takes(
                        book.processing, book.threads, _of_group(workers[addr], group), size,
                        running):  # fmt: skip
                    continue
                lacks: set = set()  # (the roots its meetings lack: reserved where it goes)
                self._partners(ts, lacks, {}, None)
                if self._start_on(ts, addr, lacks, workers, stimulus_id) is not None:
                    cands = self._thread_free()
                break
            if not cands:
                break

    def _start_on(self, ts, addr, lacks, workers, stimulus_id):
        """Split's start, shared by _split, _first_split and _split_threads: parked root ts
        on worker ``addr`` alone if its books admit it there (the roots its meetings lack,
        ``lacks``, reserved there), then at once: out of the park and the line (woken into
        line meanwhile: SPLIT_WOKEN), started, the books' views updated. The address, or
        None (refused)."""
        got = self.books.place(ts.key, math.nan, ts.group.name, {}, [addr], stimulus_id,
                               {r.key for r in lacks})  # fmt: skip
        if got is not None:
            self._unpark(ts)
            self._ready.discard(ts)
            self._start(ts, workers[got], stimulus_id)
            self._update()
        return got

    def _thread_free(self) -> list:
        """[(address, book)] of the workers free for roots with a thread free, in
        ``_free_iter``'s order: all that ``first_share_takes`` may accept (rev50m: asked of
        every free worker, busy ones too, _first_split read each one's tasks per parked
        root at every poke; twin anomaly 200 x 4 at saturation 2: 5.8 M asks, 3.9 s)."""
        bw = self.books.workers
        return [(a, b) for a in self._free_iter()
                if (b := bw.get(a)) is not None and b.processing < b.threads]

    def _split_threads(self, s, more, idle, stimulus_id) -> None:
        """_split's second round (policy.SPLIT_THREADS): the roots it chose that found every
        idle worker given one, each to the idle worker processing least whose threads are
        not all busy and that holds less than its even share of the root's task group
        (policy.split_takes). The idle workers are sorted once (processing, then address:
        ``idle``'s order) and kept sorted as roots start, a full one dropped (a sort for
        every root was O(more x idle log idle) at a large cluster's split). Cost: O(more x
        idle) at worst, only where a split ran out of idle workers."""
        workers, books, running = s.workers, self.books, len(s.running)
        order = [(books.workers[a].processing, a) for a in idle]
        order.sort()
        for ts, allowed, lacks in more:
            if ts._state != "queued":
                continue
            group, size = ts.group, len(ts.group)
            allowed = set(allowed)
            for i, (_, addr) in enumerate(order):
                if addr not in allowed:
                    continue
                book = books.workers.get(addr)
                if book is None or not split_takes(book.processing, book.threads, _of_group(
                        workers[addr], group), size, running):  # fmt: skip
                    continue
                if self._start_on(ts, addr, lacks, workers, stimulus_id) is not None:
                    del order[i]
                    if book.processing < book.threads:
                        insort(order, (book.processing, addr))
                break

    @staticmethod
    def _saturated(s, on) -> bool:
        """Has every worker of ``on`` (a parked root's partners' workers) no thread free,
        its tasks processing more than its threads (policy.split_gains' ``saturated``)?"""
        for addr in on:
            ws = s.workers.get(addr)
            if ws is not None and len(ws.processing) <= ws.nthreads:
                return False
        return True

    def _look_held(self, s, ts, looked, examined, kept=None):
        """Look, best first, at the woken held readers better than ``ts`` (the best other
        queued task, or None) while the window lasts, each as ``Broadcast.place`` would:
        held anew if its worker still runs and gate would hold it without starting a copy.
        Nothing else happens meanwhile, so each shared input is checked once per run.
        Returns ``(the first reader that is not so, or None; looked; examined)``.

        After a reader found held by ``blocked``, the readers that would be held the same
        way are passed over in bulk (:meth:`_covered`, ``Held.skip``), counted as looked
        at: the same window, the same readers held, the same stamps, found without a look
        at each (anomaly, 1,000 workers: each copy of the mean woke every reader).

        ``kept``: poke's ``[generation, blocked, covered]`` of its last run of looks in
        this scan, taken again while the generation is the same: no copy started, landed
        or was dropped since, and no message was handled (one scan), so ``blocked``'s
        findings (each input's holders, copies on their way, every holder sending) hold,
        and the bulk look's workers too (readers only left since, and none is parked
        where one may go: gate lets it go there). Why: each copy of the anomaly's mean
        that lands lets a few readers go, one run of looks each (twin anomaly 100 x 4:
        541 runs)."""
        b, copies = self._broadcast, self._copies
        held, workers, running = b.held, s.workers, s.running
        everyone = len(running) == len(workers)  # (nothing else changes in this run)
        bound = None if ts is None else ts.priority
        if kept is not None and kept[0] == b.generation:
            blocked, covered = kept[1], kept[2]
        else:
            blocked = b.blocker(s)
            covered = None  # where a held reader may go; False: no bulk look in this run
            if kept is not None:
                kept[0], kept[1], kept[2] = b.generation, blocked, None
        fast = False  # a reader was held by its stamp: the next ones likely are too
        while True:
            if fast:
                # (Held.hold_stamped: the looks below, for the readers held by their
                # stamps, in one loop; it stops before the first that is not so)
                n = copies.hold_stamped(bound, min(WINDOW - examined, 4 * WINDOW - looked),
                                        held, b.generation, workers)  # fmt: skip
                looked += n
                examined += n
                fast = False
            for c in copies.woken():
                if bound is not None and not c.priority < bound:
                    return None, looked, examined
                if examined >= WINDOW or looked >= 4 * WINDOW:
                    return None, looked, examined
                if c._state != "queued":
                    return c, looked, examined
                addr, gen = held.get(c.key, (None, -1))
                ws = None if addr is None else workers.get(addr)
                # (every worker running: a current one is, without hashing it in Python)
                if ws is None or not (everyone or ws in running):
                    return c, looked, examined
                checked = False
                # Held at this generation: by its own stamp, or by a bulk one (Held.skip;
                # the generation compared first: no call while there is none)
                if gen != b.generation and not (
                        copies._ranges_gen == b.generation
                        and copies.stamped_key(c.key, b.generation)):  # fmt: skip
                    if blocked is None or not blocked(c, ws):
                        return c, looked, examined
                    checked = True
                held[c.key] = (addr, b.generation)
                copies.repark_first(c)
                looked += 1
                examined += 1
                if not checked and everyone:
                    fast = True
                    break  # on from the new mark, in bulk
                if checked and covered is not False:
                    if covered is None:
                        covered = self._covered(s, blocked)
                        if kept is not None and kept[1] is blocked:
                            kept[2] = covered
                    if covered is not False:
                        n = copies.skip(covered, bound, min(WINDOW - examined,
                                                            4 * WINDOW - looked),
                                        b.generation)  # fmt: skip
                        if n:
                            looked += n
                            examined += n
                            break  # on from the new mark
            else:
                return None, looked, examined

    def _covered(self, s, blocked):
        """The workers with held readers where one may go now, for a bulk look
        (``Held.skip``), or False when readers must be looked at one by one. A bulk look
        needs every held reader to wait for the same shared inputs (``Held.only_sig``),
        each still shared and with every holder sending (``blocked``'s findings in this
        run), and every worker running: then a reader is held again unless its worker
        holds or awaits each of those inputs (this set). Cost: set operations in C over
        the holders, once per run of looks."""
        copies = self._copies
        sig = copies.only_sig()
        on = copies.addresses()
        # (dict.keys: a SortedDict's own keys() view compares in Python, one step per key)
        if not sig or len(s.running) != len(s.workers) or not on <= dict.keys(s.workers):
            return False
        memo = blocked.memo
        covered = None
        for k in sig:
            info = memo.get(k)
            if not info or not info[2]:  # not shared now, or a holder could send: look
                return False
            who, flight, _ = info
            here = (on & self._broadcast.addresses(k, who)) | (on & flight.keys())
            covered = here if covered is None else covered & here
        return covered
