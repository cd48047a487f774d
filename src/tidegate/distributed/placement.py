"""Where a task runs: the plugin's placement of roots (co-assignment by meeting plans,
admission through the books) and of the tasks after them (``decide_worker_non_rootish``).

A mixin of :class:`tidegate.distributed.hooks.Plugin`; the decisions are the policy's and
books.py's, these methods gather their inputs from dask's ``TaskState``s and keep the
walks and plans they reuse (bounded: ``CHAINS_KEPT``, ``WALKS_KEPT``).
"""

from __future__ import annotations

import itertools
from itertools import chain
import math

from . import admission as admission_module  # (PARK_HELD_QUEUED read per call: tests set it)
from . import restricted, trim
from ..policy import (
    MEETING_FANOUT,
    SHARED_FANOUT,
    further_by_plan,
    further_meeting,
    further_plan,
    further_plan_tasks,
    further_tasks,
    gathers_further,
    waits_for_further,
    walked_tasks,
    halo_depth,
    handle_meets,
    handle_plan_on,
    is_one_handle,
    walked_handle,
    spreads_pair,
    spreads_join,
    by_load as by_load_of,
    joins_started_fan_in,
    may_fit_count,
    meeting_plan,
    place_consumer,
    cut_at_holder,
    spreads_fanout,
    spreads_from,
    own_input,
    frees_slot,
    frees_slot_on,
    sole_holder,
    passes_for_group,
    over_wave_share,
    leaves_slower,
    paced_slower,
    paced_keeps,
    paced_move_fits,
    paced_move_waits,
    idle_takes,
    slower_alone,
    idle_tail,
    reads_slower,
    within_share,
    ends_sooner_elsewhere,
    leaves_lagging,
    splits_for_wave,
    places_by_held,
    leaves_partner,
    combine_elsewhere,
    combine_kept_whole,
    combines_whole,
    fewest_readers,
    partner_backlogged,
    loads_before_reduced,
    over_first_share,
    pair_commits,
    after_reduction,
    reduced_enough,
    waits_for_own_reduction,
    mirrored_inputs,
    mirror_holds,
    partners_on_one,
    passes_busy,
    loads_at_once,
    unit_waits_short,
    hint_within_share,
    regions_on,
    compact_regions,
)
from .. import policy as policy_module  # (FREES_SLOT read per decision: tests set it)
from .tasks import (
    _NO_MEETINGS, _NO_MOVE, _constant, _dependencies, _dependents, _freed_on, _frees, _group, _keys,
    _nbytes, _of_group, _partners, _returned, _sole_pull, _where,
)


def _taken_on(t, depth: int):
    """The worker where task t is held or processing, else where the first of its
    inputs read by t alone (a chain: a store's slices, their loads) is, up to ``depth``
    levels up; else None (Placement._gather_share's count). A task of more than
    MEETING_FANOUT inputs is no chain's: not walked (its inputs' walk would be paid per root)."""
    if t.who_has:
        return next(iter(t.who_has)).address
    if t.processing_on is not None:
        return t.processing_on.address
    if depth and len(t.dependencies) <= MEETING_FANOUT:
        for u in t.dependencies:
            if len(u.dependents) == 1:
                w = _taken_on(u, depth - 1)
                if w is not None:
                    return w
    return None


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


def _widest(plan) -> int:
    """The most inputs of one of the plan's meetings (policy.passes_busy's ``widest``)."""
    return max((len(m.dependencies) for m, _ in plan.meetings), default=0)


CHAINS_KEPT = 10_000  # chains kept for meeting plans (Plugin._plan), at most
WALKS_KEPT = 4096  # queued roots' walks kept (Plugin._walks), at most


def _room_elsewhere(addr, free, workers, widest) -> bool:
    """Has one of the three workers least loaded among those free for roots, other than
    addr, ``widest`` threads not loading a root (policy.passes_for_group)?"""
    for _, a in free[:3]:
        if a != addr:
            book = workers.get(a)
            if book is not None and book.threads - book.roots_processing >= widest:
                return True
    return False


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


def _started_on(ts):
    """The worker root ts runs or ran on (its result held there), or None."""
    ws = ts.processing_on
    if ws is None and ts.who_has:
        ws = next(iter(ts.who_has))
    return None if ws is None else ws.address


class Placement:
    """Plugin's placement methods (state set up by Plugin.__init__ / Install._install)."""

    _unheavy = None  # (root, its partners less the heavier ones' workers, those): _by_held
    _caps = (-1, 0.0)  # (workers in the books, their caps summed): _spread_at_once's
    # Are all workers in the books of policy.SPREAD_REGION_THREADS+ threads (None: not
    # known; a worker booked or removed sets it so): _place asks _region_of only then.
    _wide_books = None

    def _spread_at_once(self, ts):
        """``Books.place``'s ``spread`` of a spread root ts: 2 where policy.SPREAD_CAP may
        act (ts's group loads whole at once under the count: policy.loads_at_once, over the
        caps of the workers in the books, summed again when their number changes), else
        True."""
        if not policy_module.SPREAD_CAP:
            return True
        return 2 if loads_at_once(len(ts.group), self._caps_summed()) else True

    def _caps_summed(self) -> float:
        """The caps of the workers in the books summed (kept while their number holds)."""
        books = self.books
        if self._caps[0] != len(books.workers):
            self._caps = (len(books.workers), sum(b.cap for b in books.workers.values()))
        return self._caps[1]

    def _workers_moved(self) -> None:
        """A worker booked or removed (hooks): what is kept of the books' workers is found
        again. Keyed by their number alone, it could name a gone worker where another came
        in its place (a nanny's restart), and a region's roots would wait for it."""
        self._wide_books = None
        self._caps = (-1, 0.0)
        self._regions.clear()

    def _region_of(self, ts):
        """The worker of root ts's compact region (policy.SPREAD_REGION), or None: ts's
        group is not placed by regions, or ts is in none. Kept per group while the group's
        size holds (a graph added to it: cut again) and no worker is booked or removed
        (``_workers_moved``)."""
        entry = self._region_entry(ts)
        return None if entry is None or entry[2] is None else entry[2].get(ts.key)

    def _region_entry(self, ts):
        """_region_of's kept entry of ts's group, ``(group, its size, {key: worker} or
        None, {worker: its region's size})``, cut (again) where not kept; None where the
        books' workers are found too narrow here."""
        if self._wide_books is None:
            workers = self.books.workers.values()
            self._wide_books = bool(workers) and min(
                b.threads for b in workers) >= policy_module.SPREAD_REGION_THREADS
            if not self._wide_books:
                return None
        group = ts.group
        entry = self._regions.get(group.name)
        if entry is None or entry[0] is not group or entry[1] != len(group):
            if len(self._regions) >= WALKS_KEPT:
                self._regions.clear()
            cut = self._regions_of(ts)
            sizes: dict = {}  # (each worker's region size: policy.region_cap's REGION_LESS)
            for a in cut.values() if cut is not None else ():
                sizes[a] = sizes.get(a, 0) + 1
            entry = self._regions[group.name] = (group, len(group), cut, sizes)
        return entry

    def _regions_of(self, ts):
        """{key: worker} of ts's group, cut by policy.compact_regions, one region a worker
        in the books (sizes by their caps), where policy.regions_on the fewest threads a
        worker, ts's data is spread (its plan) and the group loads whole at once
        (policy.loads_at_once); else None. The group's roots are found from ts through
        their plans: each root's neighbours are the roots of its meetings' other inputs
        (in its group); a group not all reached so, or with a root meeting none of it,
        is not cut. With policy.REGION_WHOLE, every root's data must be spread (not ts's
        alone: the answer is the group's whichever root asks), and roots already started
        stay in their workers' regions."""
        group = ts.group
        workers = self.books.workers
        whole = policy_module.REGION_WHOLE
        if not workers or not loads_at_once(len(group), self._caps_summed()) \
                or not regions_on(min(b.threads for b in workers.values()), len(group),
                                  len(workers)) \
                or not self._plan(ts).spread:  # fmt: skip
            return None
        near: dict = {}  # key: the roots its data meets, of its group
        found = {ts.key: ts}
        todo = [ts]
        while todo:
            r = todo.pop()
            meets = near[r.key] = []
            plan = self._plan(r)
            if whole and not plan.spread:
                return None  # (a group mixing spread and unspread roots: not cut)
            for inputs in plan.inputs:
                for entry in inputs:
                    for c in entry[0]:
                        if c is not r and c.group is group:
                            meets.append(c.key)
                            if c.key not in found:
                                found[c.key] = c
                                todo.append(c)
        if len(found) != len(group) or not all(near.values()):
            return None  # (not all met from ts, or a root meeting none of its group)
        order = sorted(found.values(), key=lambda t: t.priority)
        index = {t.key: i for i, t in enumerate(order)}
        neighbours = [sorted({index[k] for k in near[t.key]}) for t in order]
        addrs = sorted(workers)
        caps = [workers[a].cap for a in addrs]
        total, n = sum(caps), len(order)
        sizes = [int(n * c // total) for c in caps]
        for k in range(n - sum(sizes)):  # (the remainder, a root each, first workers first)
            sizes[k % len(sizes)] += 1
        fixed = None
        if whole:
            at = {a: k for k, a in enumerate(addrs)}
            fixed = [at.get(_started_on(t), -1) for t in order]
        regions = compact_regions(neighbours, sizes, fixed)
        return {t.key: addrs[k] for t, k in zip(order, regions) if k >= 0}

    def _region_place(self, ts, target, stimulus_id, size=0):
        """``(worker or None, partners)`` for root ts of a group placed by regions: its
        region's worker ``target`` or none (it waits for it, as for a partner's worker),
        under policy.region_cap's cap (``Books.place``'s spread 3; ``size``: the roots of
        target's region), no meeting reserved."""
        partners = {target: 1}
        self._lacked = set()  # (none reserved: _wake_lacked wakes nothing for it)
        if target not in self._open:
            return None, partners
        return self.books.place(ts.key, math.nan, ts.group.name, partners, iter((target,)),
                                stimulus_id, set(), {}, (), 3, region=size), partners

    def _decide_worker(self):
        """dask's ``decide_worker_rootish_queuing_enabled``, installed as it is:
        Install._guard's test and fallback written in (no guard's frame around it, cpu47)."""
        if self._fallback or self.scheduler is None:  # (Install._guard's test, written in)
            return self._orig["decide_worker_rootish_queuing_enabled"]()
        try:
            s = self.scheduler
            context, self._context = self._context, None
            if context is None:
                return None  # not asked after is_rootish: stays queued for poke
            ts, ws = context
            if ws is not None:  # poke's choice
                return ws if ws in s.running else None
            if self._queue_new and ts.state == "waiting":
                return None  # a new graph with priorities: poke starts its roots in order
            names = self._limit_names(ts) if self.limits.caps else ()
            if names and self.limits.full(names):
                return None  # queued until a task of that limit ends
            if not self._root(ts):  # limited, or reads a shared input: placed by its inputs
                # dask's own placement, by its inputs (held while a shared input is not there)
                b = self._broadcast
                ws = b.place(s, ts, s.decide_worker_non_rootish)
                if ws is None and ts.state == "waiting" and admission_module.PARK_HELD_QUEUED:
                    self._held_now = ts  # (its waiting -> queued next: Plugin._queued)
                return ws
            # (._state: TaskState.state's slot, no property call: ~0.7 reads a task here)
            if ts._state == "waiting" and s.queued and s.queued.peek().priority < ts.priority:
                return None  # strict priority: queue behind better withheld roots
            if ts._state == "waiting" and policy_module.SPREAD_IN_ORDER \
                    and self._plan(ts).spread \
                    and (len(ts.group) > 1 or policy_module.SPREAD_IN_ORDER > 1):  # fmt: skip
                return None  # a new graph's spread root: poke starts them best first
            self._update()
            if not self._open:
                return None  # O(1) once every worker is full: a big graph queues cheaply
            addr, _ = self._place(ts)
            ws = None if addr is None else s.workers.get(addr)
            if ws in s.running:
                if ts._state == "waiting" and self.books.opened(ts.key):
                    # dask offers a new graph's roots in an order its sets decide: this one
                    # opened a meeting out of priority order (see _owed_first)
                    self._offered.add(ts.key)
                return ws
            if self._first_parked and ts not in self._parked:  # (in line: rev50m)
                self._first_parked.pop(ts, None)
            return None
        except Exception as exc:  # (as Install._guard's wrapper does)
            self._failed("decide_worker_rootish_queuing_enabled", exc)
            return self._orig["decide_worker_rootish_queuing_enabled"]()

    def _decide_worker_non_rootish(self, ts):
        """dask's choice, unless another worker holds more of the task's own input bytes
        (:func:`tidegate.policy.place_consumer`; inputs read by many tasks left out).
        None (``no-worker``) for a restricted task whose limit is full. Installed as dask's
        ``decide_worker_non_rootish`` itself, Install._guard's test and fallback written in
        (no guard's frame around it: once a task, cpu47)."""
        if self._fallback or self.scheduler is None:  # (Install._guard's test, written in)
            if not ts.dependencies and self.scheduler is not None:
                trim.file_now(self.scheduler)  # (dask's reads idle: trim.DEFER_FULL)
            return self._orig["decide_worker_non_rootish"](ts)
        try:
            s = self.scheduler
            if self.limits.caps and restricted.restricted(ts) and restricted.hold(self, ts):
                return None
            if ts.actor or ts.resource_restrictions or ts.worker_restrictions \
                    or ts.host_restrictions:  # fmt: skip
                if not ts.dependencies:  # (dask's may read idle: trim.DEFER_FULL's filed first)
                    trim.file_now(s)
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
            if not deps:  # (dask's reads idle: trim.DEFER_FULL's filed first)
                trim.file_now(s)
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
            if not ts.dependencies:
                trim.file_now(self.scheduler)  # (dask's reads idle: trim.DEFER_FULL)
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

    def _place(self, ts, stimulus_id=None):
        """``(worker or None, partners)`` for root ts (:meth:`_decide`); the walks of a
        root refused are kept (``_walks``): it will be placed again."""
        self._entry = None
        if policy_module.SPREAD_REGION and self._wide_books is not False:
            # (a spread group loading whole at once: each worker its compact region;
            # _region_of's kept entry read here without its call: every root placed asks,
            # and most groups are cut in none)
            group = ts.group
            entry = self._regions.get(group.name)
            if entry is None or entry[0] is not group or entry[1] != len(group):
                entry = self._region_entry(ts)
            if entry is not None and entry[2] is not None:
                target = entry[2].get(ts.key)
                if target is not None:
                    return self._region_place(ts, target, stimulus_id, entry[3][target])
        parks = self._further_parks
        if parks:
            kept = parks.get(ts.key)
            if kept is not None:
                if kept[0] is ts:
                    out = self._waits_again(ts, kept, stimulus_id)
                    if out is not None:
                        if out[0] is not None:
                            del parks[ts.key]
                        return out
                del parks[ts.key]
                self._entry = None
        self._parks_further = None
        withheld = self._withheld
        if withheld is not None and withheld[0] is ts:
            out = self._still_withheld(ts, withheld, stimulus_id)
            if out is not None:
                return out
        if policy_module.OWED_FAST:
            owed = self.books.owed.get(ts.key)
            if owed is not None:
                out = self._owed_place(ts, owed, stimulus_id)
                if out is not None:
                    return out
        addr, partners = self._decide(ts, stimulus_id)
        if addr is None:
            entry = self._entry
            if entry is not None and entry[0] is ts:
                if entry[3] is None:
                    self._keep_walk(entry)
                if self._parks_further is ts and entry[3] is not None \
                        and self._walks.get(ts.key) is entry:  # fmt: skip
                    parks[ts.key] = (ts, entry, self._lacked, self._plan(ts))
        elif self._lacked and policy_module.OWED_FAST == 2:
            # (an opener: its reserved roots' first placements read its plan, _owed_place)
            if len(self._lacked) > 1:
                if len(self._opened) >= WALKS_KEPT:
                    self._opened.clear()
                self._opened[ts.key] = [ts, self._plan(ts), False, None]
            elif self._opened:
                # A pair's opener lacks one root: its mirror would serve that one alone,
                # and costs more than the root's own plan (twin stack-sum, slice-add:
                # ~0.88x the time, cpu41-findings.txt section 2); the same decisions.
                self._opened.pop(ts.key, None)
        return addr, partners

    def _waits_again(self, ts, kept, stimulus_id):
        """_decide's answer for root ts, parked on its further meeting's busy worker the
        last time (``kept``: ``_further_parks``' entry), found without its way there while
        the walks it read hold; None when they do not, or when the answer may be another
        than books.place's over the same hint (then _decide finds it). What _decide reads
        on its way: the walks (kept: unchanged since, none of their tasks moved), the
        meeting plan (kept with them), no partners and no broadcast input (restrict
        unchanged), plan.wide None, and these, asked again: some worker free for roots,
        the hint's workers open for roots, one of them busy (so books.place asks none of
        the candidates: ``listed`` unread, as here)."""
        entry = self._kept_walk(ts)
        if entry is not kept[1] or not self._free:
            return None
        hint, whole = entry[1][1]
        if not whole:
            return None
        open_ = self._open
        hint = {w: n for w, n in hint.items() if w in open_}
        books = self.books
        workers = books.workers
        if not hint or not any(workers[w].processing for w in hint if w in workers):
            return None
        s = self.scheduler
        if self._broadcast.restricts(s, ts):
            return None
        plan = kept[3]
        if books.audit:  # (tests: the walks kept are the walks found anew)
            assert plan is self._plan(ts), ts.key
            lacks, shared, complete, spread = set(), {}, set(), []
            found = _partners(ts, lacks, shared, complete, self._size, spread, plan)
            assert (found, lacks, shared, complete, spread) == entry[1][0], ts.key
            assert not found and {r.key for r in lacks} == kept[2], ts.key
            assert entry[1][1] == further_meeting(
                ts, _dependents, _dependencies, _where, constant=_constant,
                nbytes=self._size, meetings=plan.meetings, chains=self._chains,
                group=_group), ts.key
            assert plan.wide is None and plan.pair, ts.key
            self._audited("further park")
        self._entry = entry
        lacks = self._lacked = kept[2]
        addr = books.place(ts.key, math.nan, ts.group.name, hint, (), stimulus_id, lacks,
                           None, hint.keys(), commits=plan.further, further=plan.pair)
        return (addr, {}) if addr is not None else (None, hint)

    def _owed_place(self, ts, owed, stimulus_id):
        """_decide's answer for root ts, reserved on worker w by the root that opened its
        meeting (``owed``: ``(w, opener)``), when its meetings' other inputs are each on w
        or nowhere (policy.partners_on_one); else None (then _decide finds it). What
        _decide reads on its way there, asked here with fewer steps: its plan (kept, else
        made now; with ``OWED_FAST`` 2 its opener's mirrored, policy.mirrored_inputs, where
        policy.mirror_holds proves it ts's own: ``_mirrored``), none of the rarer kinds
        (deep, gather, wide, spread), the walk of its inputs (``{w: n}``, complete {w}, no
        shared input: passes_busy and frees_slot filter complete as there), no broadcast
        input (restrict leaves all as it is), its reduction not split (``_splits``, of ts's
        own reduction, not its opener's: else _by_held may choose), then books.place as its
        partners' branch calls it. Why: anomaly's groups of 4 under a tree reduction: 3 of
        4 roots are reserved by their group's opener (75% of first placements, all placed
        on its worker or waiting for it: walk30-findings.txt)."""
        w, opener = owed
        s = self.scheduler
        books = self.books
        book = books.workers.get(w)
        if book is None or s.workers.get(w) not in s.running:
            return None
        if self._wave is not None and w in self._wave[2] and policy_module.WAVE_SPLIT:
            return None  # (w took its share of a wave: _decide asks _wave_split)
        kept = self._plans.get(ts.key)
        entries = None
        if (kept is None or kept[0] is not ts) and policy_module.OWED_FAST == 2:
            entries, further, widest = self._mirrored(ts, opener)
        if entries is None:  # its own plan (kept, else made now: _decide would)
            plan = kept[1] if kept is not None and kept[0] is ts else self._plan(ts)
            if plan.deep or plan.gather or plan.spread or plan.wide is not None:
                return None
            entries = chain.from_iterable(plan.inputs)
            further, widest = plan.further, None
        walked = partners_on_one(ts, entries, w, _where, self._size)
        if walked is None:
            return None
        if partner_backlogged(book.processing, book.threads):
            return None  # (_decide places it as a root without partners)
        if self._broadcast.restricts(s, ts):
            return None
        first = self._kept(ts)  # (its own reduction's first task, as _decide asks)
        if first is not None:
            # (_splits(ts), by the sizes its reduction's first task returned, read once:
            # NaN, not returned yet, splits nothing, so ts's size is not read then)
            returned = _returned(first.group)
            if returned == returned and reduced_enough(returned, self._size(ts)):
                return None  # (_splits: _by_held may place it elsewhere)
        n, lacks, tops = walked
        complete = {w}
        if policy_module.BUSY_PASS and not passes_busy(
                book.processing, book.threads, _widest(plan) if widest is None else widest):
            complete = ()
        elif policy_module.FREES_SLOT & 1 and frees_slot_on(book.threads):
            carries, reduces = _frees(books)
            if not frees_slot(tops, carries, reduces):
                complete = ()
        lacks = self._lacked = {r.key for r in lacks} if lacks else set()
        partners = {w: n}
        if first is not None and policy_module.FIRST_SHARE and returned != returned:
            # (as _decide: the first wave's share, _first_share)
            placed = self._first_share(ts, partners, lacks, stimulus_id)
            if placed is not None:
                return placed
        if complete and first is not None and policy_module.UNKNOWN_PASS & 1 \
                and returned != returned:  # fmt: skip
            # (as _decide: its reduction unknown, it may wait rather than pass, _unknown_pass)
            placed = self._unknown_pass(ts, partners, complete, lacks, stimulus_id)
            if placed is not None:
                return placed
        if books.audit:  # (tests: _decide's way gives the same call of books.place)
            self._audit_owed(ts, stimulus_id, partners, lacks, complete, further,
                             first is not None)
        addr = books.place(ts.key, math.nan, ts.group.name, partners, self._free_iter(),
                           stimulus_id, lacks, {}, complete, False, further,
                           own_group=first is not None,
                           stagger=self._stagger(ts) if policy_module.UNIT_STAGGER >= 4
                           else ())  # fmt: skip
        return addr, partners

    def _backlogged(self, partners, shared) -> bool:
        """Are all the workers of ``partners`` (less ``shared``'s) backlogged
        (policy.partner_backlogged), and some? Asked of every root with partners: the first
        worker not backlogged answers."""
        workers = self.books.workers
        some = False
        for w, n in partners.items():
            if shared and n <= shared.get(w, 0):
                continue
            book = workers.get(w)
            if book is None or not partner_backlogged(book.processing, book.threads):
                return False
            some = True
        return some

    def _mirrored(self, ts, opener) -> tuple:
        """``(entries, further, widest)`` of root ts's own plan (its inputs' entries, every
        meeting's together; ``plan.further``; its widest meeting), read from its opener's plan
        (kept in ``_opened``) mirrored (policy.mirrored_inputs) where policy.mirror_holds
        proves ts's plan that mirror, and none of the rarer kinds; else ``(None, None,
        None)`` (then _owed_place reads ts's own plan). The proof is kept per root with the
        opener's mirror (an again placement reads it)."""
        mirrored = self._opened.get(opener)
        if mirrored is None:
            return None, None, None
        mirrors = mirrored[2]
        if mirrors is False:  # (read first now: once per opener)
            mirrors = mirrored[2] = mirrored_inputs(
                mirrored[1], _dependents, _dependencies, constant=_constant,
                chains=self._chains)
        if mirrors is None:
            return None, None, None
        meeting, out = mirrors
        got = out.get(id(ts))
        if got is None or got[0] is not ts or got[1] is None:
            return None, None, None
        proofs = mirrored[3]
        if proofs is None:
            proofs = mirrored[3] = {}
        proof = proofs.get(id(ts))
        if proof is None or proof[0] is not ts:
            holds = mirror_holds(ts, meeting, got[2], _dependents, _dependencies,
                                 group=_group, unique=True)  # (dask's TaskStates: one a key)
            proof = proofs[id(ts)] = (ts, holds)
        if proof[1] is None:
            return None, None, None
        return got[1], proof[1][0], proof[1][1]

    def _audit_owed(self, ts, stimulus_id, partners, lacks, complete, further,
                    own_group=False) -> None:
        """Tests: _decide, its books.place call caught (nothing placed), calls it with the
        arguments _owed_place gives (its candidates listed alike) and answers its partners."""
        books = self.books
        calls = []

        def caught(*args, **kwargs):
            calls.append((args, kwargs))

        books.place = caught
        try:
            out = self._decide(ts, stimulus_id)
        finally:
            del books.place
        self._entry = None
        self._parks_further = None
        assert len(calls) == 1, (ts.key, calls)
        args, kwargs = calls[0]
        assert len(args) == 11, (ts.key, "_decide called books.place otherwise", args, kwargs)
        key, known, group, found, listed, sid, lacked, shared, done, spread, told = args
        assert (key, group, sid) == (ts.key, ts.group.name, stimulus_id), ts.key
        assert found == partners and out == (None, partners), (ts.key, found, out)
        assert list(listed) == list(self._free_iter()), ts.key
        assert lacked == lacks and self._lacked == lacks, (ts.key, lacked, lacks)
        assert not shared and set(done) == set(complete) and not spread, (ts.key, done)
        stagger = self._stagger(ts) if policy_module.UNIT_STAGGER >= 4 else ()
        assert told == further and kwargs == {"deep": False, "gather": False, "by_load": False,
                                              "own_group": own_group, "stagger": stagger}, \
            ts.key
        self._lacked = lacks
        self._audited("owed")

    def _still_withheld(self, ts, withheld, stimulus_id):
        """_decide's answer for root ts, withheld the last time for "free workers" with
        no partners and no hint (``_withheld``), when it is that again; else None (then
        _decide finds it). What _decide reads on its way there, asked again: some worker
        free, none idle, no books changed, ts not reserved, its walks kept and unmoved
        (its partners, lacks and hint as then), not split (``_splits``), no broadcast
        input (restrict leaves all as it is), no count fitting (``_may_fit``). The
        plan's parts it reads (``wide`` None, ``further``) and ``_kept`` hold while the
        graph does (a new one drops ``_withheld``). Logged as _decide logs it, with the
        same state left behind (_entry, _lacked)."""
        if not self._free or self._idle:
            return None
        _, entry, lacks, further, first = withheld
        books = self.books
        if books.changed or ts.key in books.owed:  # (books.reserved, without its call)
            return None
        if self._kept_walk(ts) is not entry or entry[1][1] is None or entry[1][1][0]:
            return None
        if (first is not None and self._splits(ts)) \
                or self._broadcast.restricts(self.scheduler, ts) \
                or self._may_fit(books.opens(lacks) if further else 0):  # fmt: skip
            return None
        if books.audit:  # (tests: _decide's way there gives the same answer)
            self._withheld = None
            out = self._decide(ts, stimulus_id)
            assert out == (None, {}) and out[1] is entry[1][0][0], ts.key
            assert books.log[-1] == (ts.key, "withheld", "free workers", stimulus_id), ts.key
            assert self._lacked == lacks and self._entry is entry, ts.key
            self._audited("still withheld")
            self._withheld = withheld
            return out
        self._entry = entry
        self._lacked = lacks
        books.log.append((ts.key, "withheld", "free workers", stimulus_id))
        return None, entry[1][0][0]

    def _decide(self, ts, stimulus_id=None):
        """``(worker or None, partners)`` for root ts: books.place with its partners; a
        root without any tries the workers of its further partners first (a hint: it
        never waits for them), then the free workers. A root that reads a widely shared
        input goes only where it is or a copy is on its way (:mod:`.broadcast`)."""
        books = self.books
        free = self._free_iter
        listed = free()
        lacks: set = set()  # roots its meetings lack besides ts (books reserves them)
        shared: dict = {}  # partners through inputs other tasks read too (a grid)
        complete: set = set()  # workers where ts's data completes a consumer
        spread: list = []  # [True]: ts's data feeds many meetings (policy.may_load_beside)
        plan = self._plan(ts)
        # (a two-array join's root opening alone, policy.spreads_join: no walk, no hint)
        alone = policy_module.JOIN_SPREAD and plan.pair and self._join_spread(ts)
        # A root whose data meets nothing (a final task reading broadcast weights) has no
        # partners, lacks none and no further meeting: neither walk is made for it.
        if plan.meetings and not alone:
            # (frees_slot's tops recorded by the walk if made now: since busy29 frees_slot
            # holds on every worker and a second walk for them cost 2-7.5% of the plugin's
            # bytecodes, plugin_ops)
            tops: dict | None = {} if not plan.deep and policy_module.FREES_SLOT & 1 else None
            found, lacks, shared, complete, spread = self._walk(ts, plan, tops)
            if complete and not plan.deep and policy_module.BUSY_PASS:
                # (policy.passes_busy; one28-, busy28-, busy29-findings.txt)
                workers = books.workers
                widest = _widest(plan)
                complete = {w for w in complete if w not in workers or policy_module.passes_busy(
                    workers[w].processing, workers[w].threads, widest)}  # fmt: skip
            if complete and not plan.deep and policy_module.FREES_SLOT & 1:
                # A pass past the count only where completing frees a slot there
                # (policy.frees_slot): a reduction's result waiting frees none.
                workers = books.workers
                one = [w for w in complete
                       if w not in workers or frees_slot_on(workers[w].threads)]
                if one:  # (the walk again for its tops where the walk was kept)
                    if None not in tops:
                        _partners(ts, set(), {}, set(), self._size, [], plan, tops)
                    carries, reduces = _frees(books)
                    complete = complete.difference(
                        [w for w in one if not frees_slot(tops.get(w, ()), carries, reduces)])
        else:
            found = {}
        partners, allowed = self._broadcast.restrict(self.scheduler, ts, found, listed,
                                                     stimulus_id)  # fmt: skip
        lacks = self._lacked = {r.key for r in lacks} if lacks else set()  # (_wake_lacked)
        if partners and policy_module.PARTNER_BACKLOG and not spread and not plan.gather \
                and self._backlogged(partners, shared):
            # (policy.partner_backlogged: its partners' workers are far behind; waiting
            # for them, or passing onto them, starves the workers that wait on them)
            partners, complete = {}, set()
        split = ()
        if partners and self._wave is not None and policy_module.WAVE_SPLIT:
            split = self._wave_split(ts, partners, plan)
            if split:
                # (a pair's second root whose partners' workers took their share of a
                # wave: placed as a fresh opener elsewhere, policy.splits_for_wave)
                partners, complete = {}, set()
        narrowed = allowed is not listed
        if narrowed:
            def free():
                return iter(allowed)
            listed = free()
        # (listed: not read yet, the first placement's candidates; a second reads afresh)
        if not narrowed and (first := self._kept(ts)) is not None:
            # (_splits(ts) when its reduction's first task returned some, else, unknown,
            # the first wave's share (_first_share), then _unknown_pass; what that group
            # returned read once)
            returned = _returned(first.group)
            if returned == returned:
                if reduced_enough(returned, self._size(ts)):
                    placed = self._by_held(ts, partners, lacks, plan, stimulus_id)
                    if placed is not None:
                        self._unheavy = None
                        return placed
                    kept, self._unheavy = self._unheavy, None
                    if kept is not None and kept[0] is ts:
                        # (its heavier partners' workers left out, as partners and as
                        # free workers: idle, one was asked next)
                        partners, heavy = kept[1], kept[2]
                        listed = (a for a in listed if a not in heavy)
            elif partners and policy_module.FIRST_SHARE and (
                    placed := self._first_share(ts, partners, lacks, stimulus_id)) is not None:
                return placed
            elif complete and partners and policy_module.UNKNOWN_PASS & 1:
                placed = self._unknown_pass(ts, partners, complete, lacks, stimulus_id)
                if placed is not None:
                    return placed
        if partners:
            # (partners through a final gather only, policy.gathers_only: none to wait for;
            # refused, it stays in line, not parked on their workers)
            own = {} if plan.gather else {w: n for w, n in partners.items()
                                          if n > shared.get(w, 0)}
            # (shared partners only, in meetings of shared inputs only: placed by load,
            # policy.by_load; asked only then)
            by_load = not own and policy_module.SHARED_BY_LOAD and by_load_of(
                plan, len(ts.dependents), all(map(_constant, ts.dependencies)), ts.nbytes)
            return books.place(ts.key, math.nan, ts.group.name, partners, listed,
                               stimulus_id, lacks, shared, complete,
                               self._spread_at_once(ts) if spread else False,
                               plan.further, deep=plan.deep, gather=plan.gather,
                               by_load=by_load,
                               own_group=self._kept(ts) is not None,
                               # (shared partners only, reserved nowhere: it opens its
                               # own meetings)
                               # (UNIT_STAGGER 4: its wave's cap binds a follower too)
                               stagger=() if not policy_module.UNIT_STAGGER or spread
                               or policy_module.UNIT_STAGGER < 4
                               and (own or books.reserved(ts.key)) else self._stagger(ts)
                               ), own  # fmt: skip
        if plan.wide is not None and joins_started_fan_in(ts, plan, _dependencies, _where):
            # Withholding it saves nothing (policy.joins_started_fan_in): any worker open
            # for roots may take it past its count, the free ones (least loaded) first.
            open_ = self._open
            if not narrowed:  # (narrowed: only where a shared input is, see .broadcast)
                listed = chain(listed, (a for a in sorted(open_) if a not in self._free_key))
            return books.place(ts.key, math.nan, ts.group.name, partners, listed,
                               stimulus_id, lacks, complete=open_, wide=True), partners  # fmt: skip
        if not self._free:
            return None, partners  # nobody may take a root without partners
        if split:
            over = split
        elif self._wave is not None and not books.reserved(ts.key):
            over = self._over_share(ts)  # (a fresh opener: not where one took its share)
        else:
            over = ()
        if over and not (split and narrowed):  # (a split keeps a shared input's workers)
            def free(free=free):
                return (a for a in free() if a not in over)
            if not narrowed:
                listed = free()
        hint, whole = self._further(ts, plan) if plan.meetings and not alone \
            else ({}, False)
        if hint and policy_module.FURTHER_GATHER == 2 and self._gathers(ts, plan):
            hint = self._gather_share(ts, hint, plan)  # (through final gathers only)
        # Where a root without partners may go anyway (free), or, when its side is all
        # the further meeting lacks, any worker open for roots (books.admits decides):
        # rechunk-add's other side found its worker's in-flight count filled by the first
        # side's loads, and every add moved one merge (twin 20x4: 1.15x queuing's bytes).
        # Any open worker for every hint piled a tree reduction's loads there (anomaly
        # 100x4: peak 1.24x, time 1.15x; with ``whole`` 1.05x and 1.11x, still 0.96x and
        # 0.58x queuing's).
        if hint:
            # (the allowed workers are listed only for a hint: reading them all cost a
            # pass over the free workers per root, twin weighted, which has none)
            if narrowed:
                ok = set(allowed)
            else:
                ok = self._open if whole else self._free_key
            found_hint, hint = hint, {w: n for w, n in hint.items() if w in ok}
            if not hint and not narrowed and plan.wide is None and waits_for_further(
                    whole, plan.pair, any(books.workers[w].processing for w in found_hint
                                          if w in books.workers)):  # fmt: skip
                # (none of them open for roots: it waits for them all the same, as below)
                for w in found_hint:
                    books.log.append((ts.key, "withheld", w, stimulus_id))
                self._parks_further = ts  # (kept as below: _split may open it elsewhere)
                return None, found_hint
        if hint and over:
            hint = {w: n for w, n in hint.items() if w not in over}
        if hint and policy_module.HINT_SHARE and (
                not whole or (policy_module.HINT_SHARE >= 2 and not plan.pair
                              and (policy_module.HINT_SHARE == 2 or len(hint) > 1))):
            hint = self._hint_share(ts, hint)
        if hint and whole and plan.pair and self._idle and policy_module.PAIR_SPREAD:
            hint = self._pair_share(ts, hint, lacks)
        if hint:
            # A worker of the further meeting counts as completing it only when ``whole``
            # (this root's side is all it lacks). Else the hint was a pass too: the first
            # root of a tree reduction's next group of 4 passed the count on the worker
            # of the previous group (twin anomaly 100x4: 8 roots in flight against a cap of
            # 5, peak 0.92x queuing's; as a hint only, with ``commits``, 0.79x).
            if not whole:
                done = ()
            elif plan.pair or not policy_module.FREES_SLOT & 2 or self._kept(ts) is not None:
                done = hint.keys()
            else:  # (policy.FREES_SLOT: not behind readers on one thread, nor behind
                # a load on every thread: policy.passes_for_group)
                workers = books.workers
                widest = _widest(plan)
                # (the roots in line besides ts, and the cluster's threads: a root passed to
                # a worker whose threads all load waits while the others' threads free up)
                ready = self._ready
                waiting = ready.roots_queued() - (ts in ready)
                total = self.scheduler.total_nthreads
                # (the free workers looked at only where no thread of w is free: GROUP_BUSY)
                done = {w for w in hint if w in workers and passes_for_group(
                    workers[w].roots_processing, workers[w].threads, widest, waiting,
                    total - workers[w].threads, workers[w].processing,
                    workers[w].processing < workers[w].threads
                    or _room_elsewhere(w, self._free, workers, widest))}
            addr = books.place(ts.key, math.nan, ts.group.name, hint, listed,
                               stimulus_id, lacks, None, done,
                               commits=plan.further, further=whole and plan.pair,
                               stagger=() if not policy_module.UNIT_STAGGER
                               or whole and plan.pair else self._stagger(ts))  # fmt: skip
            if addr is not None:
                return addr, partners
            if whole and plan.pair and any(books.workers[w].processing for w in hint
                                           if w in books.workers):  # fmt: skip
                # All its further meeting lacks, refused there while that worker is busy
                # (policy.passes_for_further): it waits for it (parked there, as a root
                # waits for a partner's busy worker: policy.place_root), not opening its
                # meeting on another worker, which would move one side's merge to the
                # other's (twin rechunk-add 20x4: 183 GB moved against 0.4).
                if not narrowed and plan.wide is None:
                    self._parks_further = ts  # (_place keeps the way here: _waits_again)
                return None, hint
            listed = free()
        commits = self._commits(ts, plan)  # (asked once: every way on below reads it)
        # (pairs counted by policy.pair_commits, no further meeting: Books.place's pair)
        pair = commits and not plan.further
        if not partners and not self._idle and not books.changed \
                and not books.reserved(ts.key) \
                and not self._may_fit(books.opens(lacks) if commits else 0):
            # No free worker is idle, none could admit it by the count: each would refuse
            # (books.place's answer, without asking each; refused workers are logged).
            if books.audit:
                assert books.place(ts.key, math.nan, ts.group.name, partners, listed,
                                   stimulus_id, lacks, commits=commits,
                                   pair=pair) is None, ts.key  # fmt: skip
                self._audited("free")
            books.log.append((ts.key, "withheld", "free workers", stimulus_id))
            entry = self._entry
            if plan.wide is None and not narrowed and entry is not None and entry[0] is ts \
                    and entry[1][1] is not None and not entry[1][1][0]:  # fmt: skip
                # (no hint, kept with the walks: _still_withheld asks the rest again)
                self._withheld = (ts, entry, lacks, commits, self._kept(ts))
            return None, partners
        return books.place(ts.key, math.nan, ts.group.name, partners, listed,
                           stimulus_id, lacks, commits=commits, pair=pair,
                           stagger=self._stagger(ts) if policy_module.UNIT_STAGGER
                           else ()), partners  # fmt: skip

    def _may_fit(self, opens: int) -> bool:
        """Could some free worker admit a root without partners, reserved nowhere, that
        would newly reserve ``opens`` roots, with none idle and no books changed
        (_decide's last way, _still_withheld)? ``may_fit_count`` over the free workers'
        counts, then, for a root opening meetings where the books read the combine view,
        a worker fitting by its count that does not await a combine (books.awaits): one
        that does refuses such a root in Books._admits after the count admits it. Why:
        twin anomaly, 20 steps a worker, 80 x 4: every free worker the count let through
        awaited its combine, and the root asked them all (35-56 asks) at each placement,
        admission checks a task growing with the cluster (review50 MEDIUM 3). Exact:
        Books._admits' own tests, on the same books and view."""
        if not may_fit_count(self._counts, opens):
            return False
        books = self.books
        noted = books.noted
        if not opens or books.combines is None or not noted:
            return True
        for w, (free, over) in self._count.items():
            # (may_fit_count's test, inlined: a pass over the free workers)
            if over + max(0, opens - free) < 0 and (w not in noted or not books.awaits(w)):
                return True
        return False

    def _join_spread(self, ts) -> bool:
        """policy.spreads_join for root ts of a two-array join: while some worker is idle,
        both sides (twice ts's group: a side a group) loading whole at once. Not a constant
        nor a shared handle (policy.is_one_handle), whatever CONSTANT_HANDLES says: a store's
        handle loads nothing (the zarr rechunk-add's two handles on 4 x 1 opened alone)."""
        if not self._idle or _constant(ts) or is_one_handle(
                0 if all(map(_constant, ts.dependencies)) else 1, len(ts.dependents),
                ts.nbytes):  # fmt: skip
            return False
        size = 2 * len(ts.group)
        return loads_at_once(size, self._caps_summed()) \
            and spreads_join(size, len(self.scheduler.running))

    def _stagger(self, ts) -> tuple:
        """``Books.place``'s ``stagger`` for root ts, without partners of its own: where ts's
        group loads whole at once (policy.loads_at_once) and policy.UNIT_STAGGER acts,
        ``(the group's roots, the running workers)`` (policy.staggers_unit's); else ().
        UNIT_STAGGER 3: only where dask's task prefixes say that ts's wait is short against
        its meeting (policy.unit_waits_short); 4: there, ``(the wave's roots: the group's
        times its meeting's roots, the running workers)`` (policy.wave_cap's); 5: 4 without
        the durations' test; 6: 4, and where not short the same with ``True`` added (a
        root the share refuses splits, policy.wave_splits) if its meeting reads its unit
        alone."""
        # (policy.UNIT_STAGGER is asked by the callers: off, no call; the cheap tests first)
        size = len(ts.group)
        if size < 2 or not loads_at_once(size, self._caps_summed()):
            return ()
        if not ts.dependents or is_one_handle(0, len(ts.dependents), ts.nbytes):
            return ()  # (a store's handle opens its readers' meetings, it is no unit)
        plan = self._plan(ts)
        meetings = plan.meetings
        if len(meetings) != 1:
            # (a unit: the roots of one meeting; a tree reduction's group of partials
            # meets its next level too: twin anomaly 20 x 4, 1.09x queuing's peak with it)
            return ()
        mode = policy_module.UNIT_STAGGER
        unit = 1
        if mode >= 4:
            # (the wave: the group's roots times its meeting's roots, ts's and the data
            # inputs' chains of the one meeting; policy.wave_cap's)
            unit += sum(1 for entry in plan.inputs[0] if entry[-1]) if plan.inputs else 0
            size *= unit
            if not loads_at_once(size, self._caps_summed()):
                return ()
        if mode in (3, 4, 6):
            # Judged once a group, at its first unit: dask's averages change as the
            # wave's first loads finish (the twin's seed slice-add 8 x 4 at 10 ms: judged
            # per root, its later units went unstaggered beside staggered ones, 1.5-1.8x
            # queuing's peak against 1.45x unstaggered)
            group = ts.group
            entry = self._shorts.get(group.name)
            if entry is None or entry[0] is not group:
                if len(self._shorts) >= WALKS_KEPT:
                    self._shorts.clear()
                entry = self._shorts[group.name] = (group,
                                                    self._waits_short(ts, *meetings[0]))
            if not entry[1]:
                # (6: not known short, a refused root splits from its unit instead of
                # waiting a load: Books.place's third item; only where the meeting reads
                # the unit alone: beside shared inputs, the twin's vorticity 20 x 4, a
                # split lowered no busiest worker and cost 0.58 -> 0.69x queuing's time)
                if mode == 6 and len(meetings[0][0].dependencies) <= unit:
                    return size, len(self.scheduler.running), True
                return ()
        return size, len(self.scheduler.running)

    @staticmethod
    def _waits_short(ts, meeting, via) -> bool:
        """policy.unit_waits_short for root ts whose data reaches ``meeting`` through the
        chain ending at ``via`` (policy's _meetings: single-input tasks; ts itself where it
        is met directly), by dask's task prefix averages (-1 where not known)."""
        chain = 0.0
        t = via
        while t is not ts:
            d = t.prefix.duration_average
            if d < 0 or len(t.dependencies) != 1:
                return False  # (a chain task's time not known: nothing is short)
            chain += d
            t = next(iter(t.dependencies))
        return unit_waits_short(ts.prefix.duration_average, chain,
                                meeting.prefix.duration_average)

    def _hint_share(self, ts, hint) -> dict:
        """The workers of root ts's hint (its further meeting's: partial, or whole over
        several workers with policy.HINT_SHARE 3) within their share of ts's task group
        (policy.hint_within_share); the hint as it is where the group does not load whole
        at once (asked first: no worker's tasks read)."""
        group = ts.group
        size, caps = len(group), self._caps_summed()
        if not loads_at_once(size, caps):
            return hint  # (the group staggers its loads: hint_within_share's first test)
        workers = self.scheduler.workers
        running = len(self.scheduler.running)
        return {w: n for w, n in hint.items() if w in workers and hint_within_share(
            _of_group(workers[w], group), size, running, caps)}

    def _pair_share(self, ts, hint, lacks) -> dict:
        """The workers of root ts's whole pair hint (its further meeting's other side all
        placed there: rechunk-add's second array) that keep ts's side: none where both
        sides' pairs fit a worker each and that worker holds roots (policy.spreads_pair);
        asked only while some worker is idle, the hint as it is where the two groups do
        not load whole at once."""
        size = 2 * len(ts.group)  # (the other side's group: as many roots, a pair)
        caps = self._caps_summed()
        if not loads_at_once(size, caps):
            return hint
        workers = self.books.workers
        running = len(self.scheduler.running)
        unit = 1 + len(lacks)  # (ts and the roots its meetings lack: a pair)
        return {w: n for w, n in hint.items() if w in workers and not spreads_pair(
            workers[w].slots_used, unit, size, running)}

    def _wave_split(self, ts, partners, plan):
        """The workers that took their share of the wave (:meth:`_over_share`) when
        policy.splits_for_wave splits ts from its partners (every partner's worker one of
        them and running roots only, its one meeting of two inputs, no two-array join, and a
        worker free for roots that is not); else ()."""
        if self._wave[0] > 1:
            return ()  # (splits_for_wave's answer, asked first: most waves)
        over = self._over_share(ts)
        if not over:
            return ()
        n = sum(1 for w in partners if w in over)
        widest = _widest(plan)
        meetings = len(plan.meetings)
        if not splits_for_wave(n, len(partners), self._wave[0], True, widest, meetings,
                               plan.pair, True):  # fmt: skip
            return ()  # (its answer before the free workers and their books are read)
        workers = self.books.workers
        roots_only = all(workers[w].processing <= workers[w].roots_processing
                         for w in partners if w in workers)  # fmt: skip
        free = roots_only and next(
            (a for a in self._free_iter() if a not in over), None) is not None
        return over if splits_for_wave(n, len(partners), self._wave[0], free, widest,
                                       meetings, plan.pair, roots_only) else ()  # fmt: skip

    def _over_share(self, ts):
        """Workers that took their share of the wave (``_wave``) and may take no fresh
        opener now: policy.over_wave_share, the line besides ts against the other
        workers' threads. None while the line is longer than the cluster's threads; the
        wave's set itself (O(1)) where the test holds for its widest worker, and so for
        all; else each asked (workers of unlike threads). A set built per decision cost
        1 ms a root at 1,000 workers all over their share (timeit_wave.py)."""
        wave = self._wave
        full = wave[2]
        if not full:
            return ()
        ready = self._ready
        waiting = ready.roots_queued() - (ts in ready)
        total = self.scheduler.total_nthreads
        if waiting >= total:
            return ()
        share = wave[0]
        if over_wave_share(share, share, waiting, total - wave[4]):
            return full  # (read, not kept: _in_wave changes it after this decision)
        taken = wave[1]
        workers = self.books.workers
        return {w for w in full if w in workers and over_wave_share(
            taken[w], share, waiting, total - workers[w].threads)}

    def _walk(self, ts, plan, tops=None):
        """``(partners, lacks, shared, complete, spread)`` of root ts: ``_partners``' walk
        and what it fills in; kept from a placement before if none of the tasks it looked
        at moved since (``_walks``). ``tops``: filled in by a walk made now (left empty
        when the walk is kept: kept walks do not record them)."""
        entry = self._kept_walk(ts)
        if entry is not None:
            if self.books.audit:
                lacks, shared, complete, spread = set(), {}, set(), []
                found = _partners(ts, lacks, shared, complete, self._size, spread, plan)
                assert (found, lacks, shared, complete, spread) == entry[1][0], ts.key
                self._audited("walk")
            self._entry = entry
            return entry[1][0]
        lacks: set = set()
        shared: dict = {}
        complete: set = set()
        spread: list = []
        out = (_partners(ts, lacks, shared, complete, self._size, spread, plan, tops), lacks,
               shared, complete, spread)  # fmt: skip
        if tops is not None:
            tops[None] = True  # (walked now: its tops are in)
        if plan.further:
            # Kept if ts is refused (_place). Only where its meetings' output meets further
            # data: those walks are long (a tree reduction's opener, rechunk-add's sides);
            # a pair's is shorter than keeping it (twin stack-sum: 1.17 -> 1.22x queuing's
            # scheduler CPU when kept).
            self._entry = [ts, [out, None], self._moved, None]
        return out

    def _further(self, ts, plan) -> tuple:
        """policy.further_meeting of root ts, kept beside its ``_walk``."""
        entry = self._entry
        if entry is not None and entry[0] is ts and entry[1][1] is not None:
            if self.books.audit:
                assert entry[1][1] == further_meeting(
                    ts, _dependents, _dependencies, _where, constant=_constant,
                    nbytes=self._size, meetings=plan.meetings, chains=self._chains,
                    group=_group), ts.key
                self._audited("further")
            return entry[1][1]
        out = further_by_plan(self._further_plan(ts, plan), _where, self._size)
        if self.books.audit:
            assert out == further_meeting(
                ts, _dependents, _dependencies, _where, constant=_constant,
                nbytes=self._size, meetings=plan.meetings, chains=self._chains,
                group=_group), ts.key
            self._audited("further plan")
        if entry is not None and entry[0] is ts:
            if entry[3] is None:  # walked now: kept with it if ts is refused
                entry[1][1] = out
            else:  # kept: looked at now, kept from its stamp on (if one moved since, both go)
                further = self._looked_at(ts, plan, True)[1]
                if further is not None:
                    entry[1][1] = out
                    entry[3] = entry[3] + further  # (a new list: the kept one is shared)
                    self._watch(further)
        return out

    def _gathers(self, ts, plan) -> bool:
        """policy.gathers_further of root ts's meetings (``always``: FURTHER_GATHER 2's
        test, the walks having kept the gather's hint), kept per root like its further
        plan."""
        kept = self._gathers_kept.get(ts.key)
        if kept is None or kept[0] is not ts:
            if len(self._gathers_kept) >= WALKS_KEPT:
                self._gathers_kept.clear()
            kept = self._gathers_kept[ts.key] = (ts, gathers_further(
                plan.meetings, _dependents, _dependencies, MEETING_FANOUT, _group, True))
        return kept[1]

    def _gather_share(self, ts, hint, plan) -> dict:
        """policy.FURTHER_GATHER 2: the workers of root ts's hint through a final gather
        only that took no more of the gather's other inputs than any running worker did
        (each input counted once, where it or the first task up its chain is:
        _taken_on); none unless ts is one unit of that gather (one meeting) and its group
        loads whole at once (as 1 then). Why the taken count, not the group's tasks held
        (slad47's form, hint_within_share's count): that misses a pair whose loads were
        consumed into slices awaiting their store; on the seed's 48-step arrays on 4 x 4
        a worker holding three pairs took a fourth past its count beside a free worker
        holding two (peak 0.73 -> 0.91x queuing's). Why the least, not the even share:
        on 8 x 4 (12 pairs) the share of two filled six workers and left two empty, and
        with UNIT_STAGGER 4 warm the idle split took capped followers from their pairs
        (test model 0.39 -> 0.60x queuing's time). Where the group does not load at once
        the count staggers the loads (hand-built slice-add 12 steps 2 x 4: a pass there
        0.977 -> 1.022x); a root of several meetings (seed-weighted's weights, met by
        every store) is no unit (4 x 1 0.935 -> 1.012x). fg48-findings.txt."""
        meetings = plan.meetings
        if len(meetings) != 1 or not loads_at_once(len(ts.group), self._caps_summed()):
            return {}
        m = meetings[0][0]
        (m2,) = m.dependents  # (gathers_further: its one dependent, the gather)
        inputs = m2.dependencies
        taken: dict = {}
        for t in inputs:
            if t is not m:
                w = _taken_on(t, 3)
                if w is not None:
                    taken[w] = taken.get(w, 0) + 1
        running = self.scheduler.running
        # (a running worker that took none: 0 without the scan; a gather has at most
        # MEETING_FANOUT inputs, so on larger clusters the hint is kept only on workers
        # that took none of them)
        least = 0 if len(taken) < len(running) else min(
            (taken.get(ws.address, 0) for ws in running), default=0)
        return {w: n for w, n in hint.items() if taken.get(w, 0) <= least}

    def _further_plan(self, ts, plan) -> tuple:
        """policy.further_plan of root ts, kept like its plan (``_fplans``)."""
        kept = self._fplans.get(ts.key)
        if kept is None or kept[0] is not ts:
            kept = self._fplans[ts.key] = (ts, further_plan(
                plan.meetings, _dependents, _dependencies, constant=_constant,
                chains=self._chains, unique=True, group=_group))  # fmt: skip
        return kept[1]

    def _keep_walk(self, entry) -> None:
        """Keep a refused root's walks (``_entry``) until a task they looked at moves."""
        ts = entry[0]
        walked, further = self._looked_at(ts, self._plan(ts), entry[1][1] is not None)
        if walked is None:
            return
        if further is None:
            entry[1][1] = None
        else:
            walked = walked + further
        if len(self._walks) >= WALKS_KEPT:
            self._forget_walks()
        entry[3] = walked
        self._walks[ts.key] = entry
        self._watch(walked)

    def _watch(self, keys) -> None:
        """Stamp these tasks when they move (transition, replica): kept walks read them."""
        moves = self._moves
        # (those not watched yet, as not moved: one pass in C, not a step per key)
        moves.update(dict.fromkeys(set(keys).difference(moves), 0))

    def _looked_at(self, ts, plan, further=False) -> list:
        """``[keys _walk looks at, keys _further looks at]`` of root ts, each None while
        a size it reads is not the task's own (not measured yet: Plugin._size answers
        from its group then, which changes without the task moving)."""
        kept = self._lookups.get(ts.key)
        if kept is None or kept[0] is not ts:
            kept = self._lookups[ts.key] = (ts, _keys(walked_tasks(plan)), None)
        if further and kept[2] is None:
            looked = further_plan_tasks(self._further_plan(ts, plan))
            if self.books.audit:
                assert looked == further_tasks(
                    plan.meetings, _dependents, _dependencies, constant=_constant,
                    chains=self._chains, group=_group), ts.key  # fmt: skip
                self._audited("further tasks")
            kept = self._lookups[ts.key] = (ts, kept[1], _keys(looked))
        return [None if part is None or min(map(_nbytes, part[1]), default=0) < 0
                else part[0] for part in kept[1:]]

    def _kept_walk(self, ts):
        """ts's kept walks if none of the tasks they looked at moved since, or if only
        tasks its further meeting's walk looked at did (that walk then redone,
        ``_further_anew``), else None."""
        entry = self._walks.get(ts.key)
        if entry is None or entry[0] is not ts:
            return None
        if entry[2] == self._moved:
            # Nothing moved since its stamp (every stamp in _moves is at most _moved: each
            # is _moved when written; _resync sets all three anew): the scan below finds
            # none later. Twin anomaly 100x4 1,000 steps: 937 of 1,799 asks, ~33 keys each.
            return entry
        looked = entry[3]
        if looked and max(map(self._moves.get, looked, _NO_MOVE)) > entry[2] \
                and not self._further_anew(ts, entry):  # fmt: skip
            del self._walks[ts.key]
            return None
        return entry

    def _further_anew(self, ts, entry) -> bool:
        """Kept walks ``entry`` of root ts, a task they looked at moved: when none of
        those ``_walk`` looked at did (only the further meeting's: rechunk-add's other side,
        a load of it starting), its further meeting is found anew (policy.further_by_plan)
        and kept in ``entry``, stamped now (the same entry: _further_parks and _withheld
        hold it); True. Else False (then both go). Why: a root parked on its further
        meeting's busy worker had its walks dropped at each start of a load of the other
        side, then was woken, put back in line, walked whole and parked again (twin
        rechunk-add 100x4 scale 0.5: 1,529 times, ~2,100 bytecodes each, where the
        meetings' walk had not moved once)."""
        if entry[1][1] is None:
            return False  # (no further meeting kept: the moved task was _walk's)
        plan = self._plan(ts)
        walked, further = self._looked_at(ts, plan, True)
        if walked is None or further is None:
            return False  # (a size read is not the task's own now)
        if walked and max(map(self._moves.get, walked, _NO_MOVE)) > entry[2]:
            return False
        out = further_by_plan(self._further_plan(ts, plan), _where, self._size)
        if self.books.audit:  # (tests: the walks kept now are the walks found anew)
            lacks, shared, complete, spread = set(), {}, set(), []
            found = _partners(ts, lacks, shared, complete, self._size, spread, plan)
            assert (found, lacks, shared, complete, spread) == entry[1][0], ts.key
            assert out == further_meeting(
                ts, _dependents, _dependencies, _where, constant=_constant,
                nbytes=self._size, meetings=plan.meetings, chains=self._chains,
                group=_group), ts.key
            self._audited("further anew")
        entry[1][1] = out
        entry[2] = self._moved
        return True

    def _audited(self, kind) -> None:
        audited = self.books.audited
        audited[kind] = audited.get(kind, 0) + 1

    def _forget_walks(self) -> None:
        self._walks.clear()
        self._moves.clear()
        self._further_parks.clear()
        self._stays.clear()  # (admission: the parked roots that stayed, by worker)
        self._stay_sides.clear()

    def _replicas(self, original):
        """dask's ``original`` (add_replica, remove_replica: ``(ts, ws)``;
        remove_all_replicas: ``(ts)``), and the task stamped as moved if a kept walk looked
        at it. The holders' listing kept for compute messages (holders.listing) is
        dropped first: the set changes."""
        plugin = self
        listed = self._listed if self._listed is not None else {}

        if original.__name__ == "remove_all_replicas":
            def stamped(ts):
                if listed:
                    listed.pop(id(ts.who_has), None)
                original(ts)
                if ts.key in plugin._moves:
                    plugin._moved += 1
                    plugin._moves[ts.key] = plugin._moved
                if ts.key in plugin._viewed:  # (a kept combine view read it)
                    plugin._view_moved(ts.key)
        elif original.__name__ == "add_replica":
            def stamped(ts, ws):
                # (a task finishing on its worker: still "processing", no holder yet; it
                # is where it ran, as before: see transition. Nothing else to do then:
                # dask's own at once, once a task)
                # (._state: TaskState.state's slot, no property call: once a task)
                if ts._state == "processing" and not ts.who_has:
                    original(ts, ws)
                    return
                if listed:
                    listed.pop(id(ts.who_has), None)
                original(ts, ws)
                if ts.key in plugin._moves:
                    plugin._moved += 1
                    plugin._moves[ts.key] = plugin._moved
                if ts.key in plugin._viewed:
                    plugin._view_moved(ts.key)
        else:
            def stamped(ts, ws):
                if listed:
                    listed.pop(id(ts.who_has), None)
                original(ts, ws)
                if ts.key in plugin._moves:
                    plugin._moved += 1
                    plugin._moves[ts.key] = plugin._moved
                if ts.key in plugin._viewed:
                    plugin._view_moved(ts.key)

        stamped.__name__ = original.__name__
        stamped.__wrapped__ = original
        return stamped

    def _partners(self, ts, lacks=None, shared=None, complete=None, spread=None) -> dict:
        """_partners by ts's kept plan."""
        return _partners(ts, lacks, shared, complete, self._size, spread, self._plan(ts))

    def _plan(self, ts):
        """ts's meeting plan: kept, else walked now and kept."""
        entry = self._plans.get(ts.key)
        if entry is not None and entry[0] is ts:
            return entry[1]
        if len(self._chains) > CHAINS_KEPT:
            self._chains.clear()  # a big graph's: those of roots placed long ago
        readers = len(ts.dependents)
        if not readers:
            return _NO_MEETINGS  # (the walk's answer, without one: a final task)
        s = self.scheduler
        # (the readers' count first: most roots have few, and then no input is looked at)
        # (a constant read by fewer: policy.CONSTANT_HANDLES, asked of a task with no
        # inputs only)
        if (readers >= SHARED_FANOUT or policy_module.CONSTANT_HANDLES & 2
                and not ts.dependencies and _constant(ts)) and walked_handle(
                _constant(ts), 0 if all(map(_constant, ts.dependencies)) else 1, readers,
                ts.nbytes) \
                and handle_plan_on(s.total_nthreads / max(1, len(s.workers)),
                                   lambda: waits_for_own_reduction(
                                       next(iter(ts.dependents)), _dependents, _dependencies)
                                   is not None) \
                and not handle_meets(ts, meeting_plan(ts, _dependents, _dependencies,
                                                      constant=_constant,
                                                      chains=self._chains)):  # fmt: skip
            # A store handle whose loads meet only each other: its readers are the roots
            # (policy.handle_meets; kept as its plan)
            self._plans[ts.key] = (ts, _NO_MEETINGS)
            return _NO_MEETINGS
        plan = meeting_plan(ts, _dependents, _dependencies, constant=_constant,
                            chains=self._chains, group=_group,
                            halo_depth=halo_depth(s.total_nthreads, len(s.workers)),
                            unique=True)  # (TaskStates: one per key)
        self._plans[ts.key] = (ts, plan)
        return plan

    def _kept(self, ts):
        """policy.waits_for_own_reduction of root ts (its reduction's first task, or
        None), kept like its plan."""
        entry = self._kept_cache.get(ts.key)
        if entry is not None and entry[0] is ts:
            return entry[1]
        # (its paths kept with the chains, bounded by _plan's clearing; no audit here: a
        # test per call cost slice-add more than the paths save it, test_placement's
        # test_own_reduction_paths_kept_give_the_walks_answers checks the answers)
        first = waits_for_own_reduction(ts, _dependents, _dependencies, 6, self._chains)
        self._kept_cache[ts.key] = (ts, first)
        return first

    def _splits(self, ts) -> bool:
        """May root ts, parked for its partners, start on a busy worker open for roots
        (policy.reduced_enough: its reduction's first task keeps at most half its load,
        by the sizes their groups returned so far)?"""
        first = self._kept(ts)
        if first is None:
            return False
        return reduced_enough(_returned(first.group), self._size(ts))

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
        if flight >= book.cap or not over_first_share(flight, 0, size, running):
            # (a full count: it would pass it, loads_before_reduced's case, UNKNOWN_PASS)
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

    def _forget_plans(self) -> None:
        """The graph changed (a graph added, a task forgotten): no kept walk holds."""
        self._kept_cache.clear()
        self._plans.clear()
        self._opened.clear()
        self._chains.clear()
        self._lookups.clear()
        self._fplans.clear()
        self._gathers_kept.clear()
        self._withheld = None
        self._forget_walks()

    def _start(self, ts, ws, stimulus_id) -> None:
        """Start queued ts on ws (poke's choice). Called within poke's _poke only: over
        dask's own transitions (``_batchable``), as dask's Scheduler.transitions but its
        messages sent where _poke's starts end (Admission._end_batch); else one apply."""
        self._context = (ts, ws)
        try:
            batch = self._batch
            if batch is None:
                if not self._batchable:
                    self._apply({ts.key: "processing"}, stimulus_id)
                    return
                batch = self._batch = ({}, {})
            self.scheduler._transitions({ts.key: "processing"}, batch[0], batch[1],
                                        stimulus_id)  # fmt: skip
        finally:
            self._context = None
