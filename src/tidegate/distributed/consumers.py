"""Where a task after the roots runs: dask's ``decide_worker_non_rootish`` as the plugin
installs it, moved where the policy says (a cut beside its holder, a fan-out spread, a
lagging worker's tasks paced off, a combine beside its held inputs, a tie to the input of
fewest readers).

A mixin of :class:`tidegate.distributed.placement.Placement`.
"""

from __future__ import annotations

import itertools
import math

from . import restricted
from ..policy import (
    SHARED_FANOUT,
    place_consumer,
    cut_at_holder,
    spreads_fanout,
    spreads_from,
    own_input,
    sole_holder,
    paced_move_fits,
    paced_move_waits,
    ends_sooner_elsewhere,
    combine_elsewhere,
    combine_kept_whole,
    combines_whole,
    fewest_readers,
    reduced_enough,
)
from .. import policy as policy_module  # (FREES_SLOT read per decision: tests set it)
from .tasks import (
    _sole_pull,
)


def _held_level(deps, group):
    """The bytes of a combine's inputs ``deps`` where they are one reduction level of
    ``group``: each held and read by the combine alone; else None
    (Placement._combine_elsewhere's test)."""
    total = 0
    for d in deps:
        if d.nbytes <= 0 or not d.who_has or len(d.dependents) != 1 or d.group is not group:
            return None  # (not one reduction's level, or an input not held)
        total += d.nbytes
    return total


def _incoming(ws) -> float:
    """Bytes of the inputs of ws's tasks processing not yet held on ws (on their way)."""
    n = 0.0
    seen = set()
    for t in ws.processing:
        for d in t.dependencies:
            if d not in seen and d.nbytes > 0 and ws not in (d.who_has or ()):
                seen.add(d)
                n += d.nbytes
    return n


# Readers of one input _ready_with looks at, at most: it is asked for each task placed on a
# lagging worker, so an input read by n tasks costs n a call and n * n over its readers (a
# mean read by 10,000 stores); above it those readers are not counted ahead (counting them
# moved the twin's 12 stores, one worker 2x slower, from 9 / 3 to 8 / 4: slow39).
_READY_SCAN = 256


def _ready_with(s, ts) -> dict:
    """{worker: dask's duration estimates of the tasks made ready with ts and not placed
    yet (readers of an input of ts read by SHARED_FANOUT to _READY_SCAN tasks, all of
    their inputs in memory, still waiting), by the worker holding their first input not
    read by many}."""
    ahead: dict = {}
    for d in ts.dependencies:
        if not SHARED_FANOUT <= len(d.dependents) <= _READY_SCAN:
            continue
        for r in d.dependents:
            if r is ts or r.state != "waiting" or r.waiting_on:
                continue
            for e in r.dependencies:
                who = e.who_has
                if who and len(e.dependents) < SHARED_FANOUT:
                    w = next(iter(who))
                    ahead[w] = ahead.get(w, 0.0) + s._get_prefix_duration(r.prefix)
                    break
    return ahead


def _moved_with(ts) -> bool:
    """Is a reader of an input of ts read by SHARED_FANOUT to _READY_SCAN tasks (ts's
    siblings: the stores of one mean) processing away from its own input not read by many
    (moved there: Placement._off_lagging)? Only while that input's copy is on its way
    (once it lands or the reader ends, a later sibling may move again: review48b; the
    stores of one mean are placed in one burst, inside that window). Above _READY_SCAN
    readers, never (every store may move, as before PACE_LAST)."""
    for d in ts.dependencies:
        if not SHARED_FANOUT <= len(d.dependents) <= _READY_SCAN:
            continue
        for r in d.dependents:
            w = r.processing_on
            if w is None or r is ts:
                continue
            for e in r.dependencies:
                if len(e.dependents) < SHARED_FANOUT and e.who_has and w not in e.who_has:
                    return True
    return False


class Consumers:
    """Plugin's placement of the tasks after the roots."""

    def _decide_worker_non_rootish(self, ts):
        """dask's choice, unless another worker holds more of the task's own input bytes
        (:func:`tidegate.policy.place_consumer`; inputs read by many tasks left out).
        None (``no-worker``) for a restricted task whose limit is full. Installed as dask's
        ``decide_worker_non_rootish`` itself, Install._guard's test and fallback written in
        (no guard's frame around it: once a task, cpu47)."""
        if self._fallback or self.scheduler is None:  # (Install._guard's test, written in)
            return self._orig["decide_worker_non_rootish"](ts)
        try:
            s = self.scheduler
            if self.limits.caps and restricted.restricted(ts) and restricted.hold(self, ts):
                return None
            if ts.actor or ts.resource_restrictions or ts.worker_restrictions \
                    or ts.host_restrictions:  # fmt: skip
                return self._orig["decide_worker_non_rootish"](ts)
            running = s.running
            everyone = len(running) == len(s.workers)  # then every holder runs (no hash)
            deps = ts.dependencies
            if len(deps) == 1:
                # One input held on one running worker: sole_holder's answer, found without
                # the dict (most single-input tasks: a chain's next step, a store). Its holder
                # whatever it weighs (not policy.own_input's tiny-root test: a read follows
                # its open's handle).
                for d in deps:
                    who = d.who_has
                    if who and len(who) == 1 and d.nbytes > 0 \
                            and len(d.dependents) < SHARED_FANOUT:  # fmt: skip
                        for h in who:
                            if everyone or h in running:
                                if self._lagging or self._paced_groups:
                                    return self._paced_off(ts, h)
                                return h  # (who_has holds the scheduler's own WorkerStates)
            local: dict = {}
            roots_max = None
            for d in deps:  # its own inputs (policy.own_input; the size and readers tests
                if d.nbytes <= 0 or len(d.dependents) >= SHARED_FANOUT:  # inlined: hot)
                    continue
                if not d.dependencies:  # computed from nothing: an indexer?
                    if roots_max is None:
                        roots_max = self.books.roots_max
                    if not own_input(d.nbytes, len(d.dependents), True, roots_max):
                        continue
                for h in d.who_has or ():
                    if everyone or h in running:
                        local[h.address] = local.get(h.address, 0) + d.nbytes
            sole = sole_holder(local)
            if sole is not None:
                if len(deps) >= 3 and policy_module.COMBINE_BY_HELD:
                    other = self._combine_elsewhere(ts, local, sole)
                    if other is not None:
                        return other
                if self._lagging or self._paced_groups:
                    return self._paced_off(ts, s.workers[sole])
                return s.workers[sole]
            if not local and deps and everyone and not any(
                    d.who_has is None or len(d.dependents) < SHARED_FANOUT for d in deps) \
                    and self._orig["is_rootish"](ts):  # fmt: skip
                # Only widely shared inputs (a model every run of a sweep reads): dask's choice
                # is among their holders, so every reader piled onto the one worker that
                # computed them (review21: 300 readers of one 4 MB input on 4 x 1, 250 on one
                # worker, makespan 2.50 s against queuing's 0.77, which takes them as rootish).
                # The least loaded worker instead, as queuing would where dask's own rule takes
                # it for rootish (a large group reading few tasks: not a stencil's halo slices,
                # which read many blocks, each by its 9 pieces): the input is copied there,
                # in waves when it is a broadcast (.broadcast: one that holds it or has a copy
                # on its way; asking another starts its copy). A few are asked, for one with a
                # free thread. A queued reader (a broadcast's) that finds none waits for the
                # copies started (their arrival pokes) rather than queue behind the holders'
                # work (then 145 and 150 of 300 readers went to two workers: 1.52 s).
                self._update()
                gate, books = self._broadcast.gate, self.books.workers
                allowed = None
                for addr in itertools.islice(self._free_iter(), 8):
                    ws = s.workers[addr]
                    if gate(s, ts, ws):
                        book = books.get(addr)
                        if book is None or book.processing < book.threads:
                            return ws
                        allowed = allowed or ws
                if self._broadcast.active and self._broadcast.shared(ts):
                    return None  # (queued: .broadcast.place keeps it in the queue)
                if allowed is not None:
                    book = books.get(allowed.address)
                    if book is not None and book.processing >= 2 * book.threads \
                            and self._broadcast.shared(ts):  # fmt: skip
                        # Its threads' worth waits there already: queued (poke asks again at
                        # the next task end), as queuing keeps its rootish tasks. Each reader
                        # went to the one free worker, all ten at a copy's landing, where
                        # stealing leaves them (their inputs are all there), while the other
                        # worker, its slots held by the grid it made, idled from its first
                        # reader's end (twin seed weighted's graph, 2 x 1: 0.85 s of 1.30,
                        # 1.54x queuing's makespan).
                        return None
                    return allowed
            ws = self._orig["decide_worker_non_rootish"](ts)  # (read here: most return above)
            if ws is None:
                return ws
            # (not local: no input of ts's own, so a data input left is read by many)
            if not local and deps and policy_module.CUT_AT_HOLDER:
                at = self._cut_holder(ts, ws)
                if at is not None:
                    return at
            if not local and deps and policy_module.SPREAD_FANOUT:
                at = self._spread_off(ts, ws)
                if at is not None:
                    return at
            addr = place_consumer(local, ws.address)
            if policy_module.TIE_FEWER_READERS and len(local) >= 2:
                addr = self._fewer_readers(ts, local, addr)
            if len(deps) >= 3 and policy_module.COMBINE_BY_HELD:
                other = self._combine_elsewhere(ts, local, addr)
                if other is not None:
                    return other
            if self._lagging or self._paced_groups:
                return self._paced_off(ts, s.workers[addr])
            return ws if addr == ws.address else s.workers[addr]
        except Exception as exc:  # (as Install._guard's wrapper does)
            self._failed("decide_worker_non_rootish", exc)
            return self._orig["decide_worker_non_rootish"](ts)

    def _cut_holder(self, ts, ws):
        """The running holder of ts's one data input, read by many (a chunk read by its cut
        pieces), when ts has no own input and policy.cut_at_holder says so, or None (dask's
        ws stands). Among holders, the one with the fewest tasks processing."""
        s, books = self.scheduler, self.books
        roots_max = books.roots_max
        big = _sole_pull(ts, roots_max)
        if big is None or not big.who_has or ws in big.who_has:
            return None
        running, best, book = s.running, None, None
        everyone = len(running) == len(s.workers)
        for h in big.who_has:
            if everyone or h in running:
                b = books.workers.get(h.address)
                if b is not None and (book is None or b.processing < book.processing):
                    best, book = h, b
        mine = books.workers.get(ws.address)
        if best is None or mine is None or not cut_at_holder(
                1, big.nbytes, roots_max, book.processing, book.threads, mine.processing):
            return None
        if self._lagging or self._paced_groups:
            return self._paced_off(ts, best)
        return best  # (a holder in who_has: the scheduler's own WorkerState)

    def _spread_off(self, ts, ws):
        """The least busy other running worker when dask placed ts (no own input) beside
        its one data input read by many, busy, and policy.spreads_fanout says so, or None
        (ws stands): a month's day slices spread with their stores (SPREAD_FANOUT)."""
        books = self.books
        mine = books.workers.get(ws.address)
        if mine is None or mine.processing < 2 * mine.threads:
            return None
        roots_max = books.roots_max
        big = _sole_pull(ts, roots_max)
        s = self.scheduler
        running = s.running
        if big is None or not big.who_has or ws not in big.who_has or not spreads_from(
                big.nbytes, roots_max, mine.processing, mine.threads, len(running)):
            return None  # (before the scan)
        best, book = None, None
        for addr, b in books.workers.items():
            other = s.workers.get(addr)
            if other is None or other is ws or other not in running:
                continue
            if book is None or b.processing * book.threads < book.processing * b.threads:
                best, book = other, b
                if not b.processing:
                    break  # (nothing processing: the least busy, the first such: rev50m)
        if best is None or not spreads_fanout(big.nbytes, roots_max, mine.processing,
                                              mine.threads, book.processing, book.threads):
            return None
        if self._lagging or self._paced_groups:
            return self._paced_off(ts, best)
        return best

    def _paced_off(self, ts, ws):
        """ws, the worker chosen for ts (not a root), or another holder of its inputs that
        ends it sooner (``_off_lagging``) where ws lags or consumers go by pace
        (``_by_pace``). The callers ask only while ``_lagging`` or ``_paced_groups`` is
        set: most placements never call it."""
        if self._lagging and ws.address in self._lagging \
                or self._paced_groups and self._by_pace():  # fmt: skip
            return self._off_lagging(ts, ws)
        return ws

    def _by_pace(self) -> bool:
        """Do consumers go by the soonest end because a root group's loads went by pace
        (policy.PACE_CONSUMERS; ``_paced_groups``), one not found clearly slower (there
        dask's stealing moves them: policy.steals_beside_slower, ``_slow_groups``)?"""
        return bool(policy_module.PACE_CONSUMERS) and not self._paced_groups <= self._slow_groups

    def _off_lagging(self, ts, ws):
        """ws, found lagging (policy.lags), or the running holder of one of ts's inputs
        that would end ts soonest at the measured paces (policy.ends_sooner_elsewhere:
        dask's occupancy and comm cost, each worker's work stretched by its lag, the
        copies on their way to it not: stretched, the slow worker's copy of the mean
        read as 3x its time and 10 stores of 12 went to the fast worker at 3x, 1.052x
        queuing's; unstretched 9, 1.016x). The
        tasks made ready with ts (readers of a shared input of ts, not yet placed: one
        task's end readies them all, dask places them one by one) count as queued where
        their own input is held, ahead of ts: placed one by one, the first of them went
        to the fast worker before its own were placed there (twin anomaly 2 x 1, every
        task of one worker 2x slower: 9 stores / 3, 1.063x queuing's; counted, 8 / 4).
        Asked only for a task placed on a lagging worker."""
        s = self.scheduler
        lagging, running = self._lagging, s.running
        duration = s._get_prefix_duration(ts.prefix)
        ahead = _ready_with(s, ts)
        bw = s.bandwidth

        def costs(w) -> tuple:
            """w's (queued work per thread, inputs' copy time): dask's occupancy counts
            the copies on their way to w, moved from the work (stretched by lag) to the
            copy time (not)."""
            net = getattr(w, "_network_occ", 0) / bw
            return ((w.occupancy - net + ahead.get(w, 0.0)) / w.nthreads,
                    s.get_comm_cost(ts, w) + net / w.nthreads)

        best, lag = ws, lagging.get(ws.address, 1.0)
        wait, comm = costs(ws)
        paced = lag == 1.0 and bool(self._paced_groups) and self._by_pace()
        if paced and policy_module.PACE_LAST:
            # (ahead's few workers tested against ts's inputs' holders, not those holders
            # gathered: the mean is held by most workers)
            deps = ts.dependencies
            if paced_move_waits(ahead.get(ws, 0.0), duration, max(
                    (v for w, v in ahead.items()
                     if not any(w in (d.who_has or ()) for d in deps)), default=0.0)) \
                    or _moved_with(ts):  # fmt: skip
                return ws  # (the worker placed last moves one: policy.PACE_LAST)
        for d in ts.dependencies:
            for other in d.who_has or ():
                if other is best or other is ws or other not in running:
                    continue
                if paced and not paced_move_fits(other.nbytes, sum(
                        e.nbytes for e in ts.dependencies if other not in (e.who_has or ())),
                        ws.nbytes):  # fmt: skip
                    continue  # (the copies would raise a worker holding more)
                other_lag = lagging.get(other.address, 1.0)
                other_wait, other_comm = costs(other)
                if ends_sooner_elsewhere(wait, lag, other_wait, other_lag, duration, comm,
                                         other_comm):  # fmt: skip
                    best, wait, lag, comm = other, other_wait, other_lag, other_comm
        if paced and best is not ws and policy_module.PACE_STAYS:
            self._pace_moved.add(ts.key)  # (stealing leaves it there: server)
        return best

    def _combine_elsewhere(self, ts, local, chosen):
        """Another worker for ts when it is a reduction's first combine of loads kept for
        that reduction (3+ inputs of one task group, each read by ts only, the first of
        them its load's ``_kept`` reduction task, keeping at most half of it:
        policy.reduced_enough; the seed anomaly's group partial of its chunk-means) and
        policy.combine_elsewhere says so: the least measured of its inputs' holders,
        ``chosen`` and the three least loaded workers free for roots, those other than
        ``chosen`` with a thread free (twin, the second worker's loads 3x slower, 2 x 1:
        a combine sent to it waited behind its loads, makespan 1.119 -> 1.158x queuing's,
        test_placement's bound 1.15). The measure: held bytes, the estimated outputs of its
        tasks processing (its roots processing counted whole at their group's estimate if
        more), their inputs still to come there (``_incoming``), and ts's inputs it lacks.
        None: ``chosen`` stands, also where ts takes its whole input group (one combine for
        every load: policy.combines_whole). Found lagging (policy.lags):
        :meth:`_off_lagging`'s answer from it, as for any consumer. Cost: for such combines
        only, a few workers' processing tasks' inputs (anomaly 100 x 4: +8 plugin bytecodes
        a task, +0.2%)."""
        deps = ts.dependencies
        # (its first input asked first: a final gather of many stores costs one look)
        first = next(iter(deps))
        if self._idle_groups and policy_module.IDLE_COMBINE and not self._lagging \
                and not self._idle_groups <= self._slow_groups:  # fmt: skip
            # (a group's root went over an idle worker's even share: the later levels too)
            loads = self._idle_load(first)
        else:
            loads = self._kept_load(first)
        holders_only = False
        if loads is None and policy_module.KEPT_WHOLE_COMBINE:
            # (a reduction keeping all it loads, in one wave: asked among its inputs' holders)
            loads = self._kept_whole_load(first)
            holders_only = loads is not None
        if loads is None:
            return None
        group = first.group
        if len(first.dependencies) == 1 and combines_whole(len(deps), len(group)):
            # (a first combine of the whole reduction: its holder's place stands,
            # COMBINE_WHOLE; a later level, IDLE_COMBINE's mean of partials beside a slow
            # worker's loads, is asked: twin 2 x 1, loads 2.5x slower, 304 against 272 MB)
            return None
        total = _held_level(deps, group)
        if total is None:
            return None
        s = self.scheduler
        workers, running = s.workers, s.running
        self._update()
        candidates = set(local)
        candidates.add(chosen)
        if not holders_only:  # (a free worker holding none: all its inputs copied in)
            candidates.update(itertools.islice(self._free_iter(), 3))
        books = self.books.workers
        est = self.books.estimate(math.nan, loads)
        est = est if est == est else 0.0
        at_chosen = best = best_key = None
        for addr in candidates:
            ws = workers.get(addr)
            if ws is None or ws not in running:
                continue
            book = books.get(addr)
            if addr != chosen and (book is None or book.processing >= book.threads):
                continue  # (no thread free there: the combine would wait behind its work)
            # (its roots processing counted whole if more: those started before any of
            # their group returned carry no estimate; a 4th load still running on a
            # 3 x 4 worker took the combine there: 1.08x queuing's peak)
            pending = 0.0 if book is None else max(book.estimated, book.roots_processing * est)
            m = ws.nbytes + pending + _incoming(ws) + total - local.get(addr, 0)
            if addr == chosen:
                at_chosen = m
            if best_key is None or (m, addr) < best_key:
                best, best_key = addr, (m, addr)
        if at_chosen is None or best == chosen \
                or not combine_elsewhere(at_chosen, best_key[0], est):  # fmt: skip
            return None
        self.books.log.append((ts.key, "combine elsewhere", best, None))
        if self._lagging and best in self._lagging:
            return self._off_lagging(ts, workers[best])  # (its holders may end it sooner)
        return workers[best]

    def _idle_load(self, first):
        """While a root group went over an idle worker's even share (``_idle_groups``,
        policy.IDLE_COMBINE): the root group whose estimate is ``_combine_elsewhere``'s
        unit, when ``first``, a combine's first input, is read by it alone; else None. A
        reduction's first combine answers as without such groups (its load's group, or
        None); a later level (the anomaly's mean of its partials) the idle group with the
        largest estimate not found clearly slower: twin, 2 x 1, loads 2.5x slower on one
        worker, 7 loads / 5 by the idle take, the mean beside the 7 and two partials held
        304 MB against queuing's 272."""
        if len(first.dependents) != 1:
            return None
        if len(first.dependencies) == 1:
            return self._kept_load(first)
        return max(self._idle_groups - self._slow_groups,
                   key=lambda g: (self.books.estimate(math.nan, g), g))

    def _kept_load(self, first):
        """The root group of the one load ``first`` (a combine's first input, read by it
        alone) reduces, where that load is kept for it and reduced enough; else None."""
        if len(first.dependencies) != 1 or len(first.dependents) != 1:
            return None
        (load,) = first.dependencies
        if not reduced_enough(first.nbytes, load.nbytes):
            # (a reduction keeping what it loads, the twin's anomaly of one time step per
            # chunk: its inputs weigh as much as the loads they would leave; moved, they
            # took anomaly 100 x 4's bytes moved 0.35 -> 0.69x queuing's, makespan +39%,
            # peak unchanged. A load's size unknown (-1): no)
            return None
        if self._kept(load) is not first:
            return None  # (its loads are not kept for this reduction)
        return load.group.name

    def _kept_whole_load(self, first):
        """The root group of the one load ``first`` (a combine's first input, read by it
        alone) keeps whole, where that load is kept for it (not policy.reduced_enough) and
        the group is no larger than the cluster's threads (policy.combine_kept_whole); else
        None (``_combine_elsewhere`` then asks only its inputs' holders)."""
        if len(first.dependencies) != 1 or len(first.dependents) != 1:
            return None
        (load,) = first.dependencies
        if not combine_kept_whole(len(load.group), self.scheduler.total_nthreads):
            return None
        if self._kept(load) is not first:
            return None
        return load.group.name

    def _fewer_readers(self, ts, local, addr):
        """Where ts's own input bytes (``local``) tie between workers, ``addr`` among
        them: the tied worker whose input there has the fewest readers
        (policy.fewest_readers, TIE_FEWER_READERS); else ``addr``."""
        best = local.get(addr)  # (None: dask's choice holds none of them, local all 0)
        tied = {a: SHARED_FANOUT for a, b in local.items() if b == best}
        if len(tied) < 2:
            return addr
        roots_max = None
        for d in ts.dependencies:
            n = len(d.dependents)
            if d.nbytes <= 0 or n >= SHARED_FANOUT:
                continue
            if not d.dependencies:
                if roots_max is None:
                    roots_max = self.books.roots_max
                if not own_input(d.nbytes, n, True, roots_max):
                    continue
            for h in d.who_has or ():
                a = h.address
                if a in tied and n < tied[a]:
                    tied[a] = n
        books = self.books.workers

        def free(a):  # (a thread free: dask's choice balances load among equals otherwise)
            book = books.get(a)
            return book is not None and book.processing < book.threads

        return fewest_readers(tied, addr, free)
