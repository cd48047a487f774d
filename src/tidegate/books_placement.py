"""The books' placement of a root: which worker among its partners' and the candidates
(``place``), the meetings it reserves, and a wave split across workers.

A mixin of :class:`tidegate.books.Books`: pure, as books.py (its rules hold here).
"""

from __future__ import annotations

from itertools import chain

from . import policy as policy_module  # (switches read per decision: tests set them)
from .policy import (
    counts_own_group,
    WIDE_PASS, estimate_output, backlogged, passes_for_further,
    passes_for_halo,
    place_root, wave_splits,
)
from .books_admission import _queues_behind_a_load


REFUSALS_KEPT = 256  # roots whose refusals are remembered (then forgotten at once)


class BooksPlacement:
    """Books' placement of roots."""

    def place(self, task, known: float, group, partners: dict, candidates: list, stimulus_id=None,
              lacks=None, shared=None, complete=(), spread=False,
              commits=False, further=False, wide=False, deep=False,
              gather=False, by_load=False, own_group=False, pair=False,
              region=0, stagger=()):  # fmt: skip
        """The worker root ``task`` should start on now, or None (keep it withheld):
        :func:`policy.place_root` over the workers that can matter.

        ``lacks``: the other roots that the meetings task's data goes to still lack
        (``meeting_partners(..., lacks=)``): placed, task reserves them on its worker, and
        is itself no longer reserved where another root reserved it. ``shared``: of
        ``partners``, those through inputs that other tasks read too (a grid): they rank
        workers but make no root wait. ``complete``: the workers where task's data would
        complete a consumer (``meeting_partners(..., complete=)``): there it may pass the
        in-flight count, as in the core (``may_admit_root``'s ``completes_consumer``).
        ``spread``: task's data feeds more than ``policy.MEETING_SPREAD`` meetings
        (``meeting_partners(..., spread=)``): it may load beside other work
        (``policy.may_load_beside``). The plugin says so of a root with partners only; 2:
        and its group loads whole at once (policy.SPREAD_CAP's cap, ``_admits``); 3: placed by
        its region (policy.SPREAD_REGION: policy.region_cap's cap; ``region``: the size of
        the region, 0: not known).
        ``commits``: task's meetings' output meets further data (``policy.meets_further``),
        so the roots of ``lacks`` it would reserve count as in flight already when it asks:
        it opens a meeting only where the meeting fits in the count. Without it, a worker
        at cap - 1 opened a meeting and took its partners past the count by completing it
        (rechunk-add: a-side merges waiting for the b-side; anomaly: groups of 4 for a
        tree reduction): twin rechunk-add 20x4, 1,000 steps, 9-10 roots in flight against
        a cap of 5, peak 0.89x queuing's; counted, 0.63x and 1.1 GB moved against 19.
        Not for a pair whose meeting ends the pipeline: it fills the count and idles
        threads (twin vorticity 20x4: threads 92-94% busy against 100%, makespan +6%).
        ``further``: ``complete`` are the workers of a further meeting whose other side is
        all found (``policy.further_meeting``'s ``whole``): there task passes the count
        only as ``policy.passes_for_further`` says. ``deep``: ``complete`` was found by a
        deep meeting plan (``policy.MeetingPlan.deep``, a chunk's halo): there task passes
        the count only as ``policy.passes_for_halo`` says. ``gather``: task's data meets
        other data only in final tasks (``policy.gathers_only``): every partner counts as
        ``shared`` (ranks, makes no root wait), and a worker, a partner's or not, takes it
        only with a thread free: none is queued behind running work, so the roots bind
        to workers as threads free (tasks of unequal length: twin seed weighted 4 x 1,
        one queued behind each worker's running store, 1.053x queuing's makespan; bound
        as threads free, 1.019x; bench/results/wall29-findings.txt). ``by_load``:
        ``policy.by_load``'s answer (the plugin's): with shared partners only, task goes
        to the least loaded worker that admits (``place_root``'s ``by_load``), so the
        least loaded candidate is examined too, also past its one partner's worker.
        ``own_group``: task waits for its own reduction (``policy.waits_for_own_reduction``):
        where it is reserved, its opener's other roots reserved there do not count against
        it (``policy.counts_own_group``). ``pair``: ``commits`` is the plugin's
        ``policy.pair_commits`` (pairs met by a root's parts, no further meeting): task
        opens them only where ``policy.pair_waits`` lets it (not where the tasks
        processing fill the cap). ``stagger``: ``(roots of task's group, running
        workers)`` where that group loads whole at once (the plugin's, ``()``: not): on a
        worker that did not reserve it, task and the roots of ``lacks`` not processing
        yet (its unit) open only as ``policy.staggers_unit`` lets them, idle workers
        excepted.

        ``partners``: {worker: inputs of the tasks its data meets, held or processing
        there}; ``candidates``: workers that may take some (``may_take_some``), least loaded
        first. Partners' workers are examined first; then candidates in load order until
        one admits (only idle ones when partners exist, as place_root would choose): the
        rest could not be chosen over it. Cost: partners plus the candidates passed over,
        not the cluster's size.
        A third item of ``stagger`` (policy.UNIT_STAGGER 6, the plugin's where the loads
        are not known short): refused by its partners' workers whose wave share is taken
        (policy.wave_splits), task goes without partners to the first candidate whose
        share admits it: its unit splits, one piece of data copied to its meeting."""
        if len(stagger) > 2:
            if not partners:  # (nothing to split from: mode 4's cap alone)
                stagger = stagger[:2]
            else:
                return self._place_split(task, known, group, partners, candidates,
                                         stimulus_id, lacks, shared, complete, spread,
                                         commits, further, wide, deep, gather, by_load,
                                         own_group, pair, region, stagger[:2])
        owed = self._owed.get(task)
        mine = owed[0] if owed is not None else None  # the worker that reserved a slot for task
        # (policy.counts_own_group: its opener's other roots still reserved there)
        group_owed = len(self._owing.get(owed[1], ())) if own_group and owed is not None else 0
        if gather and partners:
            shared = partners
        # (the same on every worker: self.estimate, inlined)
        est = estimate_output(known, self._loaded_max.get(group, 0.0), self._roots_max)
        cuts = self.cuts_max  # (policy.backlogged's; below its threshold, every group's)
        if cuts >= policy_module.BACKLOG_BURST_CUTS:
            cuts = self.burst_cuts(group)
        opens = self.opens(lacks) if commits else 0
        # (policy.staggers_unit: the root and the roots its meetings lack not processing
        # yet, reserved by another opener or not: they follow it; not asked where it is
        # reserved, admits)
        unit = 1 + self._unit(lacks) if stagger else 0
        # Refusals remembered (see _refusals): valid while the task-wide inputs of the
        # answer are these and, per worker, its book's version and the two inputs below.
        expecting, log = self.expecting, self.log
        asked = (est, opens, spread, bool(self._roots_max), self.policy.probe, wide, deep,
                 pair, region, unit, stagger)
        # (_admits asks the body's view only then; place asks it once per worker)
        awaited = self.noted if opens and self.combines is not None else None
        entry = self._refusals.get(task)
        refusals = entry[2] if entry is not None and entry[0] == asked \
            and entry[1] is expecting else None  # fmt: skip

        def admits(book, w, aw=None) -> bool:  # (one call for every way below: same arguments)
            nonlocal refusals
            completes = w in complete
            reserved = w == mine
            if reserved and group_owed > 1 and counts_own_group(book.threads):
                reserved = group_owed
            if completes:  # (one test where it is not: most asks)
                if further:
                    completes = passes_for_further(book.roots_processing)
                elif wide:
                    completes = WIDE_PASS
                elif deep:
                    completes = passes_for_halo(book.roots_processing + book.roots_untouched
                                                + book.owed - reserved, book.cap, book.passes,
                                                book.threads > 1)
            # (reserved's count is w's too: a reservation made or ended bumps its version)
            seen = 4 * book.version + (2 if completes else 0) + (1 if reserved else 0)
            if awaited is not None:
                # (the body's view may change while w's books do not: kept as 3 * seen + 0 /
                # 1, the view then, or + 2, refused whatever it says; the view asked here
                # only where the refusal kept depends on it)
                seen *= 3
                if refusals is not None:
                    was = refusals.get(w)
                    if was == seen + 2:
                        seen += 2
                    elif was == seen or was == seen + 1:
                        if aw is None:  # (else asked by the caller: the kept step)
                            aw = w in awaited and self.awaits(w)
                        seen += aw
            if refusals is not None and refusals.get(w) == seen:
                if self.audit:  # (tests: the remembered answer is _admits')
                    assert not self._admits(book, w, task, est, completes, stimulus_id, True,
                                            int(reserved), spread, _queues_behind_a_load(book),
                                            opens, pair=pair, region=region,
                                            unit=0 if reserved else unit,
                                            wave=stagger, cuts=cuts), (task, w)  # fmt: skip
                    self.audited["refused"] = self.audited.get("refused", 0) + 1
                    if awaited is not None and aw is None:  # (kept whatever the view)
                        self.audited["refused, view not asked"] = \
                            self.audited.get("refused, view not asked", 0) + 1
                log.append((task, "withheld", w, stimulus_id))  # as _admits would
                return False
            ok = self._admits(book, w, task, est, completes, stimulus_id, True, int(reserved),
                              spread, _queues_behind_a_load(book), opens, aw, pair, region,
                              0 if reserved else unit, stagger, cuts)
            if ok:
                return True
            if awaited is not None and aw is None:  # (ok None: refused by the combine alone)
                seen += 1 if ok is None else 2
            if book.held + book.estimated + est > book.budget or (
                    (book.threads > policy_module.BACKLOG_THREADS
                     or policy_module.BACKLOG_DRAINED >= 2) and backlogged(
                        book.processing, book.roots_processing, book.threads,
                        book.roots_untouched, book.held + book.estimated,
                        book.cap * self._roots_max, cuts)):  # fmt: skip
                # Not kept: a refusal that may rest on held bytes (against the budget, or
                # the wider backlog's against the largest root: BACKLOG_FLIGHT), which bump
                # no version (the body measures them afresh), could outlive them (review43).
                # The one-thread backlog reads counts only, but for BACKLOG_DRAINED 2's
                # held test (review48): kept only with that off.
                return False
            if refusals is None:
                if len(self._refusals) >= REFUSALS_KEPT:
                    self._refusals.clear()
                refusals = {}
                self._refusals[task] = (asked, expecting, refusals)
            refusals[w] = seen
            return False

        if not partners:
            # place_root's answer without partners: the least loaded that admits, i.e. the
            # first candidate that does (they come least loaded first and the scan stops
            # there), found without its per-worker lists (once per root: a root reading
            # broadcast weights has none, twin weighted 100x4 ~200 bytecodes a root).
            workers = self.workers
            if refusals is not None and mine is None and not complete:
                # A kept refusal found in one step (the kept step): admits' own test where w
                # completes nothing and reserved nothing (seen = 4 * version; x 3 + 2 with
                # the view: refused whatever it says); any other answer is admits'. Why: no
                # call of the closure for such a refusal (twin anomaly 100x4, 1,000 steps:
                # 4.4 a task; session 38). Exact: the same test, the same log entry.
                mul, add = (12, 2) if awaited is not None else (4, 0)
                audit = self.audit
                for w in candidates:
                    was = refusals.get(w)
                    if was == mul * workers[w].version + add:
                        if audit:  # (tests: admits finds the same, logged and audited there)
                            self._kept_step(admits, workers[w], w, None, task)
                        else:
                            log.append((task, "withheld", w, stimulus_id))  # as admits would
                        continue
                    book = workers[w]
                    if was is None or awaited is None or was // 3 != 4 * book.version:
                        if admits(book, w):
                            return self._placed(task, w, stimulus_id, lacks)
                        continue
                    # (kept as refused by the view then, 3 * seen + 0 / 1: asked again, once,
                    # here)
                    aw = w in awaited and self.awaits(w)
                    if was != 12 * book.version + aw:
                        if admits(book, w, aw):
                            return self._placed(task, w, stimulus_id, lacks)
                    elif audit:
                        self._kept_step(admits, book, w, aw, task)
                    else:
                        log.append((task, "withheld", w, stimulus_id))
                return None
            for w in candidates:
                if admits(workers[w], w):
                    return self._placed(task, w, stimulus_id, lacks)
            return None
        refused = None  # the one partner's worker, asked below and refused
        waited = False
        if len(partners) == 1:
            # One partner's worker (a pair's second root): place_root's answer when that
            # worker admits is that worker (admissible with partners: the best; nothing
            # else is examined then), found without its per-worker lists. Not when every
            # partner there is shared (policy.SHARED_BY_LOAD: the least loaded then).
            for w in partners:
                book = self.workers.get(w)
                if book is not None and partners[w] > 0 and not (
                        by_load and policy_module.SHARED_BY_LOAD and shared
                        and partners[w] <= shared.get(w, 0)):
                    if (not gather or book.processing < book.threads) and admits(book, w):
                        return self._placed(task, w, stimulus_id, lacks)
                    refused = w  # (not asked again below: one answer, one log entry)
                    if book.processing and partners[w] > (shared.get(w, 0) if shared else 0):
                        # Refused by its one partner's busy worker: it waits for it
                        # (place_root's answer below: None, no candidate asked), found
                        # without the per-worker lists (a root parked on its further
                        # meeting's worker asks about once per task end there).
                        if not self.audit:
                            return None
                        waited = True  # (tests: below finds the same)
        ws, partner, admissible, idle, load, common = [], [], [], [], [], []
        shared = shared or {}

        def examine(w):
            book = self.workers[w]
            p = partners.get(w, 0)
            c = shared.get(w, 0)
            ws.append(w)
            partner.append(p)
            common.append(c)
            idle.append(book.processing == 0)
            load.append((book.roots_processing + book.roots_untouched + book.processing)
                        / book.threads)  # (roots_in_flight, without the property's call)
            ok = w != refused and (not gather or book.processing < book.threads) \
                and admits(book, w)  # fmt: skip
            admissible.append(ok)
            return ok

        found = waits = own = False
        for w in partners:
            if w in self.workers:
                found = examine(w) or found
                if partners[w] > shared.get(w, 0):
                    own = True
                    waits = waits or self.workers[w].processing > 0
        # (else it waits for a partner's busy worker; with shared partners only, the
        # least loaded candidate that admits is examined too: policy.SHARED_BY_LOAD)
        if (not found or (not own and by_load and policy_module.SHARED_BY_LOAD)) \
                and not waits:  # fmt: skip
            for w in candidates:
                if w in partners:
                    continue
                if own and self.workers[w].processing:
                    continue  # with partners elsewhere only an idle worker may take it
                if gather and self.workers[w].processing >= self.workers[w].threads:
                    continue  # (a final gather's partners: one with a thread free)
                if examine(w):
                    break
        if not ws:
            return None
        i = place_root(partner, admissible, idle, load, common, by_load)
        if waited:
            assert i is None, task
            self.audited["waits"] = self.audited.get("waits", 0) + 1
        return None if i is None else self._placed(task, ws[i], stimulus_id, lacks)

    def _kept_step(self, admits, book, w, aw, task) -> None:
        """Tests (``audit``): a refusal place's kept step found is admits' (which logs it)."""
        ok = admits(book, w, aw)
        assert not ok, (task, w)
        self.audited["kept step"] = self.audited.get("kept step", 0) + 1

    def opens(self, lacks) -> int:
        """How many of ``lacks`` (``place``'s) a root opening their meetings would newly
        reserve: those neither reserved nor processing yet (``place``'s ``commits``)."""
        if not lacks:
            return 0
        owed, processing = self._owed, self._processing
        if type(lacks) is set:  # (the plugin's: counted in C, a set difference per dict)
            return len(lacks.difference(owed).difference(processing))
        return sum(1 for r in lacks if r not in owed and r not in processing)

    def _unit(self, lacks) -> int:
        """How many of ``lacks`` (``place``'s) are not processing yet: a root opening
        their meetings brings them after it (``place``'s ``stagger``)."""
        if not lacks:
            return 0
        if type(lacks) is set:
            return len(lacks.difference(self._processing))
        return sum(1 for r in lacks if r not in self._processing)

    def reserved(self, task) -> bool:
        """Has a root that opened task's meeting reserved a slot for it somewhere?"""
        return task in self._owed

    def _place_split(self, task, known, group, partners, candidates, stimulus_id, lacks,
                     shared, complete, spread, commits, further, wide, deep, gather, by_load,
                     own_group, pair, region, wave):
        """``place`` with policy.UNIT_STAGGER 6's split (``place``'s ``stagger``): asked
        with its partners first; refused where every partner's worker took its share
        (policy.wave_splits), asked again with none, the same arguments otherwise (a split
        root opens its meeting where it goes: ``commits``, ``gather``'s free thread), over
        the candidates less the partners' workers. The candidates the first ask passed over
        are kept for the second, so the cost stays what ``place`` reads, not the cluster."""
        candidates = iter(candidates)
        seen = []

        def recorded():
            for c in candidates:
                seen.append(c)
                yield c

        w = self.place(task, known, group, partners, recorded(), stimulus_id, lacks, shared,
                       complete, spread, commits, further, wide, deep, gather, by_load,
                       own_group, pair, region, wave)
        workers = self.workers
        if w is not None or not wave_splits(
                [(b.roots_processing + b.roots_untouched, b.cap) for b in
                 (workers.get(p) for p in partners) if b is not None], *wave):
            return w
        return self.place(task, known, group, {},
                          (c for c in chain(seen, candidates) if c not in partners),
                          stimulus_id, lacks, shared, (), spread, commits, further, wide, deep,
                          gather, by_load, own_group, pair, region, wave)

    def _placed(self, task, w, stimulus_id, lacks):
        """Root ``task`` goes to worker w (``place``'s answer): logged, and the roots its
        meetings lack reserved there."""
        self._refusals.pop(task, None)
        self.log.append((task, "placed", w, stimulus_id))
        if lacks or self._owed:
            self._reserve(task, w, lacks)
        return w
