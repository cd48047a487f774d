"""Where a root runs: the plugin's placement of roots (co-assignment by meeting plans,
admission through the books), dask's ``decide_worker_rootish_queuing_enabled`` as the
plugin installs it.

:class:`Placement`, a mixin of :class:`tidegate.distributed.hooks.Plugin`, joins the
placement mixins: ``regions`` (compact regions of spread groups), ``consumers`` (the
tasks after the roots: ``decide_worker_non_rootish``), ``walks`` (meeting plans and
walks, kept and reused) and ``held_choice`` (which partner's worker, by held bytes and
pace). The decisions are the policy's and books.py's; these methods gather their inputs
from dask's ``TaskState``s.
"""

from __future__ import annotations

from itertools import chain
import math

from . import admission as admission_module  # (PARK_HELD_QUEUED read per call: tests set it)
from ..policy import (
    partner_backlogged, partner_backlog_leaves,
    kept_share_on,
    further_meeting,
    waits_for_further,
    is_one_handle,
    spreads_pair,
    spreads_join,
    by_load as by_load_of,
    joins_started_fan_in,
    may_fit_count,
    frees_slot,
    frees_slot_on,
    passes_for_group,
    over_wave_share,
    splits_for_wave,
    reduced_enough,
    mirrored_inputs,
    mirror_holds,
    partners_on_one,
    passes_busy,
    loads_at_once,
    unit_waits_short,
    hint_within_share,
)
from .. import policy as policy_module  # (FREES_SLOT read per decision: tests set it)
from .tasks import (
    _constant, _dependencies, _dependents, _frees, _group, _of_group, _partners, _returned, _where,
)
from . import walks as walks_module  # (WALKS_KEPT read there: one bound, set on walks)
from .regions import Regions
from .consumers import Consumers
from .walks import Walks
from .held_choice import HeldChoice


def _widest(plan) -> int:
    """The most inputs of one of the plan's meetings (policy.passes_busy's ``widest``)."""
    return max((len(m.dependencies) for m, _ in plan.meetings), default=0)


def _room_elsewhere(addr, free, workers, widest) -> bool:
    """Has one of the three workers least loaded among those free for roots, other than
    addr, ``widest`` threads not loading a root (policy.passes_for_group)?"""
    for _, a in free[:3]:
        if a != addr:
            book = workers.get(a)
            if book is not None and book.threads - book.roots_processing >= widest:
                return True
    return False


class Placement(Regions, Consumers, Walks, HeldChoice):
    """Plugin's placement methods (state set up by Plugin.__init__ / Install._install)."""

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
                if len(self._opened) >= walks_module.WALKS_KEPT:
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
        if partner_backlogged(book.processing, book.threads) \
                and self._backlog_leaves(ts, (w,)):  # fmt: skip
            return None  # (_decide places it as a root without partners)
        if self._broadcast.restricts(s, ts):
            return None
        first = self._kept(ts)  # (its own reduction's first task, as _decide asks)
        if first is not None:
            # (_splits(ts), by the sizes its reduction's first task returned, read once:
            # NaN, not returned yet, splits nothing, so ts's size is not read then)
            returned = _returned(first.group)
            if returned == returned and (reduced_enough(returned, self._size(ts))
                                         or policy_module.KEPT_SHARE & 1
                                         and kept_share_on(book.threads, len(s.running))
                                         and self._past_share_at(ts, w)):
                return None  # (_splits: _by_held may place it elsewhere; _kept_share)
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

    def _backlog_leaves(self, ts, workers) -> bool:
        """policy.partner_backlog_leaves for root ts, its partners' ``workers`` backlogged:
        is an input of a task ts's data meets still processing on one of them (a piece not
        cut yet), and how many tasks processing there come before it (dask's priority,
        counted up to what policy asks)? Asked only of such roots."""
        if not policy_module.PARTNER_BACKLOG_CUT:
            return True
        for c in ts.dependents:
            for d in c.dependencies:
                ws = d.processing_on
                if ws is not None and d is not ts and not d.who_has and ws.address in workers:
                    book = self.books.workers.get(ws.address)
                    threads = book.threads if book else ws.nthreads
                    limit = policy_module.PARTNER_BACKLOG_FRONT * threads
                    ahead = 0
                    if limit and threads <= policy_module.PARTNER_BACKLOG_THREADS \
                            and policy_module.PARTNER_BACKLOG_CUT >= 2:  # fmt: skip
                        priority = d.priority
                        for o in ws.processing:
                            if o.priority < priority:
                                ahead += 1
                                if ahead >= limit:
                                    break
                    return partner_backlog_leaves(True, ahead, threads, bool(self._idle))
        return True

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
                and self._backlogged(partners, shared) and self._backlog_leaves(ts, partners):
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
                elif partners and policy_module.KEPT_SHARE & 1 and (
                        placed := self._kept_share(ts, partners, lacks, stimulus_id)) is not None:
                    return placed
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
            if policy_module.TAIL_THREAD_FREE & 1:
                listed = self._tail_listed(ts, listed)
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
        if not partners and policy_module.TAIL_THREAD_FREE & 2:
            listed = self._tail_listed(ts, listed)
        return books.place(ts.key, math.nan, ts.group.name, partners, listed,
                           stimulus_id, lacks, commits=commits, pair=pair,
                           stagger=self._stagger(ts) if policy_module.UNIT_STAGGER
                           else ()), partners  # fmt: skip

    def _tail_listed(self, ts, listed):
        """``listed`` for root ts without partners (policy.TAIL_THREAD_FREE): in the tail
        (policy.tail_wants_thread) only the workers with a thread free, else as it is."""
        if not policy_module.tail_wants_thread(
                self._ready.roots_queued(), self.scheduler.total_nthreads):
            return listed
        self._tail_asked = ts  # (refused now, ts is the filter's: Admission._refresh)
        workers = self.books.workers
        return (a for a in listed if a in workers and workers[a].processing < workers[a].threads)

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
                if len(self._shorts) >= walks_module.WALKS_KEPT:
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
