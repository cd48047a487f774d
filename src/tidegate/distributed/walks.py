"""The plugin's walks of a root's graph: its meeting plan (which roots its data meets,
where their consumers wait: policy.meeting_plan), the further walks beyond it and the
gathers of a store's slices, kept and reused while the graph holds (bounded:
``CHAINS_KEPT``, ``WALKS_KEPT``).

A mixin of :class:`tidegate.distributed.placement.Placement`; the walks read dask's
``TaskState``s, the policy decides from them.
"""

from __future__ import annotations


from ..policy import (
    MEETING_FANOUT,
    SHARED_FANOUT,
    further_by_plan,
    further_meeting,
    further_plan,
    further_plan_tasks,
    further_tasks,
    gathers_further,
    walked_tasks,
    halo_depth,
    handle_meets,
    handle_plan_on,
    walked_handle,
    meeting_plan,
    reduced_enough,
    waits_for_own_reduction,
    loads_at_once,
)
from .. import policy as policy_module  # (FREES_SLOT read per decision: tests set it)
from .tasks import (
    _NO_MEETINGS, _NO_MOVE, _constant, _dependencies, _dependents, _group, _keys,
    _nbytes, _partners, _returned, _where,
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


CHAINS_KEPT = 10_000  # chains kept for meeting plans (Plugin._plan), at most


WALKS_KEPT = 4096  # queued roots' walks kept (Plugin._walks), at most


class Walks:
    """Plugin's walks and meeting plans (state set up by Plugin.__init__)."""

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
