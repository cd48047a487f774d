"""Which partner's worker a root joins when several hold its partners' data: by the
bytes each holds (policy.places_by_held), the pace of slower workers, an idle worker's
share and a reduction's first share (policy.over_first_share).

A mixin of :class:`tidegate.distributed.placement.Placement`.
"""

from __future__ import annotations

import itertools
import math

from ..policy import (
    holds_share,
    kept_share_on,
    past_kept_share,
    leaves_slower,
    paced_keeps,
    idle_takes,
    slower_alone,
    idle_tail,
    reads_slower,
    within_share,
    leaves_lagging,
    places_by_held,
    leaves_partner,
    loads_before_reduced,
    over_first_share,
    pair_commits,
    after_reduction,
)
from .. import policy as policy_module  # (FREES_SLOT read per decision: tests set it)
from .tasks import (
    _freed_on, _of_group, _returned,
)


class HeldChoice:
    """Plugin's choice among its partners' workers by held bytes and pace."""

    _unheavy = None  # (root, its partners less the heavier ones' workers, those): _by_held

    def _held_here(self, addr, book, owner, est) -> float:
        """Bytes worker addr holds or will, for ``_by_held``: held and estimated, plus the
        roots reserved there (but the one being placed, reserved by ``owner``), less what
        the reductions processing there will have freed when they end
        (policy.after_reduction). Its roots in flight and reserved count whole if that is
        more (``UNKNOWN_PASS`` bit 2): roots started before any of their group returned
        carry no estimate. Cost: addr's processing tasks' inputs."""
        held = book.held + book.estimated + (book.owed - (addr == owner)) * est
        if policy_module.UNKNOWN_PASS & 2:  # (roots started before any returned: no estimate)
            held = max(held, (book.roots_processing + book.roots_untouched + book.owed
                              - (addr == owner)) * est)
        ws = self.scheduler.workers.get(addr)
        if ws is not None:
            for ts in ws.processing:
                freed = _freed_on(ts, ws)
                if freed:
                    held -= after_reduction(freed, _returned(ts.group))
        return held

    def _by_held(self, ts, partners, lacks, plan, stimulus_id):
        """Root ts waits for its own reduction and may load away from its meeting's
        partners (``_splits``): where it goes when the worker it would go to holds more
        than another (policy.places_by_held; its partners' worker, else the least loaded
        free one): the running worker holding least, past the in-flight count (its load
        stays until the reduction is whole wherever it goes), or, when that worker may
        take no root now (its cap, its budget), it waits for it (parked there, as for a
        partner's busy worker). ``(worker or None, partners)``; None: placed as any root.
        Cost: one look at every worker, for such roots only."""
        books = self.books
        est = books.estimate(math.nan, ts.group.name)
        if not est:
            return None
        if ts.group.name not in self._pace:  # its roots' paces are kept from now on
            self._pace[ts.group.name] = {}
            if policy_module.LAG_CONSUMERS:  # and its readers' (policy.lags): of it alone
                for d in ts.dependents:
                    if len(d.dependencies) == 1 and d.group.name not in self._readers \
                            and d.group.name not in self._pace:  # fmt: skip
                        self._readers[d.group.name] = (ts.group.name, {})
                        self._lag_roots.setdefault(ts.group.name, {})
        owner = books.owed.get(ts.key, (None,))[0]
        s = self.scheduler
        running, workers = s.running, s.workers
        if partners:
            p = max(partners, key=partners.__getitem__)
        else:
            p = next(iter(self._free_iter()), None)
        held_p = None
        least = least_key = None
        # (the other partners' workers' measures: policy.leaves_partner, HEAVY_PARTNER)
        others = {} if len(partners) > 1 and policy_module.HEAVY_PARTNER else None
        helds = {} if policy_module.IDLE_PACE else None  # (policy.idle_takes' measures)
        idle = False  # (a running worker with nothing processing: _idle_takes asked)
        for addr, book in books.workers.items():
            if workers.get(addr) not in running:
                continue
            h = self._held_here(addr, book, owner, est)
            if helds is not None:
                helds[addr] = h
                idle = idle or not book.processing
            if addr == p:
                held_p = h
            elif others is not None and addr in partners:
                others[addr] = h
            key = (h, addr != p, book.processing / book.threads, addr)
            if least_key is None or key < least_key:
                least, least_key = addr, key
        if least is None or least == p or held_p is None \
                or not places_by_held(held_p, least_key[0], est) \
                or policy_module.PACE_HELD and self._paced_keeps(ts, held_p, least_key[0],
                                                                 est, least, p):  # fmt: skip
            if others and least is not None:
                # (p stands: a heavier partners' worker is left out of those ts may join,
                # _decide reads _unheavy; books.place went there when p refused it)
                heavy = [w for w, h in others.items() if leaves_partner(h, least_key[0], est)]
                if heavy:
                    self._unheavy = (ts, {w: n for w, n in partners.items() if w not in heavy},
                                     heavy)
            off = self._off_slower(ts, p, lacks, plan, stimulus_id) \
                if policy_module.OFF_SLOWER else None  # fmt: skip
            if off is None and idle and p in helds:
                book = books.workers[p]
                if book.processing >= book.threads:  # (it would wait for p's thread)
                    off = self._idle_takes(ts, p, helds, est, lacks, plan, stimulus_id)
                    if off is not None:
                        self._unheavy = None
            return off
        if policy_module.OFF_SLOWER:  # (it holds least but is clearly slower: leaves_slower)
            off = self._off_slower(ts, least, lacks, plan, stimulus_id)
            if off is not None:
                return off
        got = books.place(ts.key, math.nan, ts.group.name, {}, [least], stimulus_id, lacks,
                          complete={least}, commits=plan.further)  # fmt: skip
        if got is None and self._slower(ts.group.name, least, p):
            self._found_slower(ts.group.name)
            return None  # it would wait for a worker clearly slower: placed as any root
        if got is None and idle:
            took = self._idle_takes(ts, least, helds, est, lacks, plan, stimulus_id)
            if took is not None:
                return took
        return got, ({} if got is not None else {least: 1})

    def _idle_takes(self, ts, busy, helds, est, lacks, plan, stimulus_id):
        """Root ts would wait for worker ``busy``: a running worker with nothing
        processing that should take it instead (policy.idle_takes by the group's paces and
        ``helds``, _by_held's measures; policy.within_share with the roots ts's meetings
        lack, or ts alone and one over where busy is slower than every other worker:
        policy.slower_alone; one over at the group's tail: policy.idle_tail, IDLE_TAIL; its
        bit 8: ts alone at the tail where busy is not slower alone),
        ``(worker, {})``, or None. Not while a worker lags (the
        LAG_* rules' case). Cost: every worker's book, for such roots only; an idle
        worker's tasks where the paces say yes."""
        if self._lagging:
            return None
        paces = self._pace.get(ts.group.name)
        if not paces or busy not in paces:
            return None
        books, s = self.books, self.scheduler
        # (busy slower than every other worker at the group: the worker's pace, not its
        # loads'; ts counted alone, one over the even share: policy.slower_alone)
        alone = slower_alone(paces[busy], [p for a, p in paces.items() if a != busy])
        lacked, over = (0, policy_module.IDLE_OVER) if alone else (len(lacks), 0)
        size, running = len(ts.group), len(s.running)
        tail_any = policy_module.IDLE_TAIL & 8  # (the tail, the loads' slowness: ts alone)
        left = ts.group.states.get("queued", 0) if alone or tail_any else 0
        # (the running worker holding most: a take up to it lifts none above it, IDLE_TOP)
        top = max(helds.values()) if policy_module.IDLE_TOP else 0.0
        for addr, book in books.workers.items():
            if addr == busy or book.processing or addr not in helds \
                    or not idle_takes(paces[busy], paces.get(addr), helds[busy], helds[addr],
                                      est, top_held=top):  # fmt: skip
                continue
            more, lack = over, lacked
            # (the group's tail for addr, not a lagging busy worker's: one over, ts alone)
            if left and idle_tail(left, paces[busy], paces.get(addr)) \
                    and not (policy_module.IDLE_TAIL & 4
                             and self._reads_slower(ts.group.name, busy, addr)):  # fmt: skip
                more, lack = max(over, 1), 0
            count = _of_group(s.workers[addr], ts.group)
            if not within_share(count + lack, size, running, more):
                continue
            got = books.place(ts.key, math.nan, ts.group.name, {}, [addr], stimulus_id, lacks,
                              complete={addr}, commits=plan.further)  # fmt: skip
            if got is not None:
                if more and policy_module.IDLE_COMBINE \
                        and not within_share(count, size, running):  # fmt: skip
                    self._idle_groups.add(ts.group.name)  # (over its share: _idle_load)
                if more > over and policy_module.IDLE_TAIL & 2:
                    self._paced_groups.add(ts.group.name)  # (stores by the soonest end)
                return got, {}
        return None

    def _reads_slower(self, group, busy, addr) -> bool:
        """Are busy's readers of root group ``group`` slower than addr's (policy.reads_slower,
        the paces policy.lags reads: ``_readers``)?"""
        for root, paces in self._readers.values():
            if root == group and reads_slower(paces.get(busy), paces.get(addr)):
                return True
        return False

    def _paced_keeps(self, ts, held_p, least_held, est, least, p) -> bool:
        """Does root ts stay with p rather than go to (or wait for) ``least``, the worker
        holding least, steadily slower at ts's group (policy.paced_keeps)? A yes is noted:
        consumers go by the soonest end from now on (PACE_CONSUMERS)."""
        if self._lagging and least in self._lagging:
            return False  # (a process lagging throughout: the LAG_* rules' case)
        paces = self._pace[ts.group.name]
        if not paced_keeps(held_p, least_held, est, paces.get(least), paces.get(p)):
            return False
        self._paced_groups.add(ts.group.name)
        return True

    def _off_slower(self, ts, p, lacks, plan, stimulus_id):
        """Root ts would run on worker p (its partners', or the one holding least), clearly
        slower at its group than another running worker that should run it instead
        (``_faster``, policy.leaves_slower): placed there, ``(worker, {})``, or parked
        for it when it may take no root now; else None (as before)."""
        fast = self._faster(ts, p)
        if fast is None:
            return None
        got = self.books.place(ts.key, math.nan, ts.group.name, {}, [fast], stimulus_id,
                               lacks, complete={fast}, commits=plan.further)  # fmt: skip
        return got, ({} if got is not None else {fast: 1})

    def _faster(self, ts, p):
        """A running worker than which p is clearly slower at root ts's group
        (policy.clearly_slower, lags_clearly) and that should run ts rather than p
        (policy.leaves_slower; p lagging throughout: leaves_lagging), or None. Asked by
        ``_by_held`` and ``_heavier`` only: cost p's book, and every running worker's
        paces only where ts's group has paces of two workers. With ``OFF_FREE`` a faster
        worker with a free thread first (not queued behind the first faster one)."""
        books = self.books
        book = books.workers.get(p) if p is not None else None
        group = ts.group.name
        paces = self._pace.get(group)
        if book is None or not paces or len(paces) < 2:
            return None
        running, workers = self.scheduler.running, self.scheduler.workers
        left = ts.group.states.get("queued", 0)
        first = None  # (a busy one: a free one found later is taken instead, OFF_FREE)
        for addr in books.workers:
            if addr != p and workers.get(addr) in running and self._slower(group, p, addr):
                self._found_slower(group)  # (p found clearly slower: stealing may move)
                other = books.workers[addr]
                if not (leaves_slower(book.roots_processing, book.threads, left,
                                      other.roots_processing, paces.get(p),
                                      paces.get(addr))  # fmt: skip
                        or self._lagging and p in self._lagging
                        and leaves_lagging(book.roots_processing, book.threads)):
                    continue
                if not policy_module.OFF_FREE or other.processing < other.threads:
                    return addr
                if first is None:
                    first = addr
        return first

    def _unknown_pass(self, ts, partners, complete, lacks, stimulus_id):
        """Does root ts wait rather than pass its partners' full count (``UNKNOWN_PASS``
        bit 1, policy.loads_before_reduced)? It waits for its own reduction, none of whose
        first tasks returned yet (its split is unknown: ``_splits``), is the last root its
        meeting lacks (``lacks`` empty), a load of its group returned (the estimate is no
        guess), and it would pass its partners' worker's full count by completing the
        meeting there (``complete``) while one of the two least loaded workers free for
        roots (their counts not full) holds a load less (held as ``_held_here``, or its
        roots in flight and reserved counted whole if more: roots started before any
        returned carry no estimate; for the free ones without the reductions' look). Then
        ``(None, partners)``: parked there until its reduction is known and ``_by_held``
        may place it; else None. Cost: two free workers' books, for such roots only (every
        open worker's held measure: anomaly 100 x 4's plugin bytecodes +28%; every free
        worker's books: +6%)."""
        if lacks:
            return None
        returned = _returned(ts.group)
        if returned != returned:
            return None
        books = self.books
        est = books.estimate(math.nan, ts.group.name)
        if not est:
            return None
        p = max(partners, key=partners.__getitem__)
        workers = books.workers
        book = workers.get(p)
        if p not in complete or book is None:
            return None
        owner = books.owed.get(ts.key, (None,))[0]
        n = book.roots_processing + book.roots_untouched + book.owed - (p == owner)
        if n < book.cap:
            return None  # (its count admits it: no pass)
        least = math.inf
        # (the two least loaded free for roots: running, open, their counts not full)
        for addr in itertools.islice(self._free_iter(), 2):
            other = workers.get(addr)
            if addr != p and other is not None:  # (as below, without the reductions' look)
                owes = other.owed - (addr == owner)
                least = min(least, max(other.held + other.estimated + owes * est,
                                       (other.roots_processing + other.roots_untouched
                                        + owes) * est))
        if least == math.inf:
            return None
        # (p's roots counted whole first: loads_before_reduced grows with what the partners'
        # worker holds, and p's measure is at least that, so a count that says wait is the
        # answer; what p holds, a look at its processing tasks' inputs, is read only when
        # it does not: twin anomaly 100x4, every hold was decided by the count)
        if not loads_before_reduced(n * est, least, est):
            if not loads_before_reduced(max(self._held_here(p, book, owner, est), n * est),
                                        least, est):
                return None
        elif books.audit:  # (tests: the whole measure gives the same answer)
            assert loads_before_reduced(max(self._held_here(p, book, owner, est), n * est),
                                        least, est), ts.key  # fmt: skip
            self._audited("held by count")
        books.log.append((ts.key, "withheld", p, stimulus_id))
        return None, partners

    def _commits(self, ts, plan) -> bool:
        """Books.place's ``commits`` for root ts, none of whose partners is placed: its
        meetings' output meets further data (``plan.further``), or its data meets several
        pairs, all with the one root it would reserve (``_lacked``: a rechunk's block cut
        in halves, each half merged with the partner block's), whose tasks are not known to
        keep what they read (policy.pair_commits, by what the meetings' groups returned so
        far). Not for several partners (a rolling window's neighbours on either side: twin
        rolling mean 2 x 2, test_halo26, 1.09x queuing's peak when they committed)."""
        if plan.further:
            return True
        meetings = plan.meetings
        if not policy_module.PAIR_COMMITS or len(meetings) < 2 or len(self._lacked) != 1:
            return False
        est = self.books.estimate(math.nan, ts.group.name)
        keep = self.books.policy.chain_keep
        n = len(meetings)
        return all(pair_commits(n, len(m.dependencies), _returned(m.group), est, keep)
                   for m, _ in meetings)

    def _first_share(self, ts, partners, lacks, stimulus_id):
        """Root ts waits for its own reduction, none of whose first tasks returned yet (the
        first wave): ``(None, partners)`` (withheld, parked on its partners' worker) when
        that worker (the most partners) has its share of ts's task group processing or held,
        its count still admitting ts, and a worker free for roots holds fewer
        (policy.over_first_share); else None. Once its reduction is known, ``_by_held``
        places it by held bytes where the reduction reduces (policy.reduced_enough), else
        it joins its partners as before. Placed elsewhere at once (the first form), the
        twin's anomaly 20 x 4 (24 steps, chunk-means as large as their loads) moved its
        groups' means: peak 550 -> 600 MB (queuing's 550). Counted by task group, not by
        the books' roots in flight: a store handle's slot is no load of the group. Cost:
        the roots' count in the books first (a worker under its share there is under it by
        group); the group's tasks on the free workers only where that count reaches it."""
        books = self.books
        group = ts.group
        size, running = len(group), len(self.scheduler.running)
        p = max(partners, key=partners.__getitem__)
        book = books.workers.get(p)
        if book is None:
            return None
        flight = book.roots_processing + book.roots_untouched
        if flight >= book.cap and not (policy_module.KEPT_SHARE & 2 and kept_share_on(
                book.threads, running, 2)) or not over_first_share(flight, 0, size, running):
            # (a full count: it would pass it, loads_before_reduced's case, UNKNOWN_PASS;
            # KEPT_SHARE bit 2: it waits all the same, _kept_share places it once known)
            return None
        workers = self.scheduler.workers
        ws = workers.get(p)
        if ws is None or not over_first_share(_of_group(ws, group), 0, size, running):
            return None
        for addr in self._free_iter():
            if addr != p and over_first_share(size, _of_group(workers[addr], group), size,
                                              running):  # fmt: skip
                # (a worker free for roots holds fewer of the group: ts waits, parked on
                # its partners' worker, until its reduction is known; then _by_held places
                # it by held bytes if the reduction reduces, else it joins its partners)
                books.log.append((ts.key, "withheld", p, stimulus_id))
                if policy_module.FIRST_SHARE >= 2:
                    # (Admission._first_split; a caller that does not park it drops it)
                    self._first_parked[ts] = None
                return None, partners
        return None

    def _past_share_at(self, ts, p) -> bool:
        """Does worker p hold or run its even share of root ts's task group
        (policy.holds_share)? Then ``_owed_place`` leaves root ts to ``_decide``, where
        ``_kept_share`` may place it elsewhere (its caller asked policy.kept_share_on)."""
        ws = self.scheduler.workers.get(p)
        if ws is None:
            return False
        size, running = len(ts.group), len(self.scheduler.running)
        # (first with every task of ws counted, an upper bound of _of_group's count, so
        # the answer is the same: on 2 x 2 the walk was 109-508 tasks a call, +11%
        # bytecodes a task for no schedule moved, rev52m; the bound skips 95-99% of them)
        return holds_share(len(ws.processing) + len(ws.has_what), size, running) \
            and holds_share(_of_group(ws, ts.group), size, running)  # fmt: skip

    def _kept_share(self, ts, partners, lacks, stimulus_id):
        """Root ts waits for its own reduction, known to keep all it loads (not
        policy.reduced_enough): ``(worker, {})`` when its partners' worker (the most
        partners) holds its even share of ts's task group and workers free for roots hold
        fewer (policy.past_kept_share, where policy.kept_share_on): placed by the books
        among those, the ones holding some of its partners first, then the fewest of the
        group; else None (it joins its partners as before). Cost: the group's tasks on
        the partners' worker, and on the free workers only where that one holds its
        share."""
        group = ts.group
        s = self.scheduler
        size, running = len(group), len(s.running)
        workers = s.workers
        p = max(partners, key=partners.__getitem__)
        ws = workers.get(p)
        if ws is None or not kept_share_on(ws.nthreads, running):
            return None
        if not past_kept_share(len(ws.processing) + len(ws.has_what), 0, size, running):
            return None  # (_of_group's upper bound first: _past_share_at says why)
        count = _of_group(ws, group)
        if not past_kept_share(count, 0, size, running):
            return None
        fewer = []
        for addr in self._free_iter():
            if addr != p:
                n = _of_group(workers[addr], group)
                if past_kept_share(count, n, size, running):
                    # (a worker holding some of its partners first: its chunk-mean stays
                    # with theirs, not alone waiting for their combine elsewhere)
                    fewer.append((-partners.get(addr, 0), n, len(fewer), addr))
        if not fewer:
            return None
        fewer.sort()
        books = self.books
        addr = books.place(ts.key, math.nan, group.name, {}, (f[3] for f in fewer),
                           stimulus_id, lacks)
        if addr is None:
            return None  # (none admits it now: it joins its partners as before)
        books.log.append((ts.key, "past kept share", p, stimulus_id))
        return addr, {}

    def _heavier(self, ts, addr, memo=None) -> bool:
        """Does worker addr hold more than half a load more than the least holding running
        worker (policy.places_by_held), for root ts placed by ``_by_held``?"""
        books = self.books
        est = books.estimate(math.nan, ts.group.name)
        if not est or addr not in books.workers:
            return False
        if policy_module.OFF_SLOWER:
            key = ("faster", ts.group.name, addr)
            fast = memo.get(key, False) if memo is not None else False
            if fast is False:
                fast = self._faster(ts, addr)
                if memo is not None:
                    memo[key] = fast
            if fast is not None:
                return True  # a faster worker runs it sooner (policy.leaves_slower)
        owner = books.owed.get(ts.key, (None,))[0]
        s = self.scheduler
        running, workers = s.running, s.workers
        # (``memo``: the least found for this owner and estimate while the books are
        # unchanged: _split asks it of every allowed worker in turn)
        found = None if memo is None else memo.get((owner, est))
        if found is None:
            found = min(((self._held_here(a, b, owner, est), a)
                         for a, b in books.workers.items()
                         if workers.get(a) in running), default=(math.inf, None))  # fmt: skip
            if memo is not None:
                memo[owner, est] = found
        least, at = found
        if at is not None and at != addr and self._slower(ts.group.name, at, addr):
            self._found_slower(ts.group.name)
            return False  # it would wait for a worker clearly slower than addr
        return places_by_held(self._held_here(addr, books.workers[addr], owner, est), least, est)
