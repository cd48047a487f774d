"""Putting the plugin into a dask ``SchedulerState`` and taking it out again.

``install`` replaces the methods in ``STATE_HOOKS`` (and the replica hooks) on the
instance, never the class, each behind a guard that falls back to dask's original for a
call that raises (``_guard``; the per-task ones have it written in); ``uninstall``
restores dask's, and ``_resync`` rebuilds the
books from the scheduler's state after an error in the bookkeeping.

A mixin of :class:`tidegate.distributed.hooks.Plugin`.
"""

from __future__ import annotations

import itertools
import logging
import math
import traceback
from types import MethodType

import dask.config

from ..annotations import check_limits
from ..books import Books, Limits
from . import broadcast, holders, recompile, restricted, trim
from .trim import _NoWorkers
from .broadcast import Broadcast
from .held import Held
from .lines import _Lines

logger = logging.getLogger("tidegate.distributed")

_MISSING = object()
# SchedulerState methods replaced on the instance, with the parameters we expect (after
# self). "*name": keyword-only; "name=": has a default.
STATE_HOOKS = {
    "is_rootish": ("ts",),
    "decide_worker_rootish_queuing_enabled": (),
    "check_idle_saturated": ("ws", "occ="),
    "decide_worker_non_rootish": ("ts",),
}
# dask's methods that change where a task is held besides its transitions (a copy landing,
# a replica dropped): the plugin's versions stamp the task (Plugin._moves) and call dask's.
REPLICA_HOOKS = ("add_replica", "remove_replica", "remove_all_replicas")
# dask's callers of remove_all_replicas (distributed 2025.4-2026.8): transitions from memory
# or released, after each of which Plugin.transition stamps the task (a kept walk's _moves);
# and it drops the holders' set (``ts.who_has = None``): a listing kept for that set
# (holders.listing) is never read again (a new set is another object; the kept one holds
# the old alive, so its id is not reused). Where both hold, its hook has nothing to do.
_DROPS_ALL_CALLERS = frozenset({"_transition_memory_released", "_transition_memory_erred",
                                "_propagate_forgotten"})
_DROPS_ALL_NAMES = ("get_nbytes", "who_has", "nbytes", "_has_what", "len", "replicated_tasks",
                    "remove")
_drops_all: dict = {}  # scheduler class -> whether its remove_all_replicas needs no hook


def _is_dask_transitions(scheduler, apply) -> bool:
    """Is ``apply`` dask's own ``Scheduler.transitions`` bound to ``scheduler`` (its
    ``_transitions`` into two dicts of messages, then ``send_all``)? Then poke may run each
    start's ``_transitions`` itself and send once (Placement._start, Admission._end_batch)."""
    try:
        from distributed.scheduler import Scheduler
    except ImportError:  # pragma: no cover
        return False
    return getattr(apply, "__self__", None) is scheduler \
        and getattr(apply, "__func__", None) is Scheduler.__dict__.get("transitions") \
        and callable(getattr(scheduler, "_transitions", None)) \
        and callable(getattr(scheduler, "send_all", None))  # fmt: skip


def _starts_by_walk() -> bool:
    """Does this distributed start a graph's roots in the order update_graph's walk from
    the requested keys reaches them (dask/distributed#9036, 2025.5.0), with dask.order's
    priorities since dask/dask#11935 (2025.5.0, distributed pins its dask)? Before, every
    task went to "waiting" in priority order: the twin's stencil then ran one schedule
    whatever the key names (4 of 5 namings alike), and on the tests' 6 x 6 blocks that
    schedule ended slower with the light allowance (2 x 1 1.030 -> 1.052x queuing's: the
    last blocks split 4 / 2, la34-findings.txt). The allowance (books.light) is given from
    there on: policy.LIGHT_AHEAD's gain was measured on those releases."""
    import distributed
    from packaging.version import Version

    return Version(distributed.__version__.split("+")[0]) >= Version("2025.5.0")


# books.light given (Plugin._light_on) or not (None: no light allowance); tests may set it.
LIGHT_RELEASE = _starts_by_walk()


class Install:
    """Plugin's install / uninstall methods."""


    # -- install / uninstall --------------------------------------------------------------
    def install(self, scheduler, apply=None) -> None:
        """Replace the scheduler's decision points with tidegate's (idempotent).

        ``scheduler``: a live ``distributed.Scheduler``, or any ``SchedulerState`` (the
        twin). ``apply(recommendations, stimulus_id)`` executes the moves ``poke`` decides;
        default: ``scheduler.transitions`` (a live scheduler). A bare ``SchedulerState`` has
        none: the caller routes the messages, so it must pass ``apply``."""
        from . import check_compatible

        check_compatible(scheduler)
        previous = scheduler.__dict__.get("_tidegate")
        if previous is self:
            return
        other = self.scheduler
        if other is not None and other is not scheduler and other.__dict__.get("_tidegate") is self:
            # One plugin's books and hooks serve one scheduler: installed on a second, the
            # first's hooks decided with the second's state, and its computes hung (review21).
            raise ValueError(
                "this tidegate Plugin is installed on another scheduler; give each scheduler "
                "its own tidegate.distributed.Plugin(...)"
            )
        if apply is None:
            apply = getattr(scheduler, "transitions", None)
            if apply is None:
                raise TypeError(
                    "this scheduler has no transitions(); pass apply(recommendations, "
                    "stimulus_id) to install()"
                )
        if self._limits_arg is None:  # the config where the scheduler runs: refused before
            self._limits_arg = check_limits(dask.config.get("tidegate.limits", None) or {})
        if previous is not None:  # (put back below if this install fails)
            previous.uninstall()
        self.scheduler = scheduler
        self._apply = apply
        # poke's starts share one send (Admission._end_batch): only where apply is dask's
        # own Scheduler.transitions on this scheduler (its _transitions, then send_all)
        self._batchable = _is_dask_transitions(scheduler, apply)
        self._batch = None
        self._server = False
        self._task_to_msg = None
        self._steal_confirmed = None  # (the steal-response handler wrapped: _watch_steals)
        self._listed = None  # holders.listing's kept copies, by id of a task's holders
        self._saved_idle_task_count = None
        self._held = set()
        self._pokes = itertools.count()
        self._saved = {name: scheduler.__dict__.get(name, _MISSING)
                       for name in (*STATE_HOOKS, *REPLICA_HOOKS)}
        self._saved_saturation = scheduler.WORKER_SATURATION
        try:
            self._install(scheduler)
        except BaseException:
            # Nothing half-installed (review21: a timer tornado refused left the hooks in
            # and no timer): dask's own methods back, then the error.
            scheduler._tidegate = self
            try:
                self.uninstall()
            except Exception as exc:
                logger.exception("tidegate: undoing a failed install failed too: %r", exc)
            if previous is not None:  # the plugin this one was to replace runs on (review22:
                try:  # a replacement refused left the scheduler with none, dask's own)
                    previous.install(scheduler, previous._apply)
                except Exception as exc:
                    logger.exception("tidegate: putting the previous plugin back failed: %r",
                                     exc)  # fmt: skip
            raise

    def _install(self, scheduler) -> None:
        self._fallback = False
        self._registered = None  # the name dask keeps the plugin under, found on a tick
        self._logged: set = set()
        self._orig = {name: getattr(scheduler, name) for name in STATE_HOOKS}
        self._context = None  # (ts, ws or None): the task the next placement is for
        self._held_now = None  # the reader _decide_worker just held (Plugin._queued)
        self._queue_new = False  # queue every new root until the next poke
        self._offered: set = set()  # roots dask offered that reserved partners (_owed_first)
        self._resync()
        scheduler.WORKER_SATURATION = self.policy.saturation
        scheduler.is_rootish = self._is_rootish  # (guarded within: once a task)
        # (guarded within: Placement._decide_worker, as _is_rootish)
        scheduler.decide_worker_rootish_queuing_enabled = self._decide_worker
        # tidegate owns the queue: dask's count of workers with queue slots stays empty,
        # and dask's check_idle_saturated (twice per task) runs without the statement
        # that fills it, where that statement is as expected (trim.py), else as it is;
        # restated with its helpers inlined where they read what trim.quick expects.
        trimmed = None
        if "check_idle_saturated" not in scheduler.__dict__:  # (not another's override)
            trimmed = trim.quick(scheduler)
            if trimmed is None:
                fn = trim.without_idle_task_count(type(scheduler).check_idle_saturated)
                trimmed = None if fn is None else MethodType(fn, scheduler)
        self._check_idle = trimmed or self._orig["check_idle_saturated"]
        if self.memory_limit is not None:  # a busy worker over its budget is not idle
            scheduler.check_idle_saturated = self._guard(
                "check_idle_saturated", self._check_idle_saturated
            )
        elif trimmed is not None:
            scheduler.check_idle_saturated = trimmed
        # dask's compute-task message with widely held inputs' holders listed from a kept
        # copy while unchanged (holders.py): the same message, its largest cost cut.
        if "_task_to_msg" not in scheduler.__dict__:  # (not another's override)
            make = holders.task_to_msg(type(scheduler)._task_to_msg)
            if make is not None:
                listed = holders.listing(self.books.audited if self.books.audit else None)
                self._listed = listed.kept  # (dropped by the replica hooks: _replicas)
                self._task_to_msg = MethodType(make(listed), scheduler)
                scheduler._task_to_msg = self._task_to_msg
        idle_task_count = scheduler.idle_task_count
        self._saved_idle_task_count = set() if type(idle_task_count) is _NoWorkers \
            else idle_task_count  # fmt: skip
        scheduler.idle_task_count = _NoWorkers()
        # (guarded within: once a task, as _is_rootish)
        scheduler.decide_worker_non_rootish = self._decide_worker_non_rootish
        scheduler._tidegate = self
        self._watch_steals(scheduler)
        for name in REPLICA_HOOKS:
            if name == "remove_all_replicas" and _drops_all_in_transitions(scheduler):
                continue  # (twin rechunk-add 100 x 4: 0.88 calls a task, ~45 bytecodes)
            setattr(scheduler, name, self._replicas(getattr(scheduler, name)))
        from . import server

        if server.is_server(scheduler):
            self._server = True
            server.attach(self, scheduler)
        broadcast.watch(self, scheduler)
        for ws in scheduler.workers.values():
            scheduler.check_idle_saturated(ws)
        logger.info("tidegate installed: %s", self.describe())
        self.poke("tidegate-install")

    def uninstall(self) -> None:
        """Put dask's own methods back; tasks withheld by tidegate go to dask's queue."""
        s = self.scheduler
        if s is None:
            return
        self.scheduler = None
        if s.__dict__.get("_tidegate") is not self:
            return
        del s._tidegate
        broadcast.unwatch(s)
        if self._saved_idle_task_count is not None:  # (None: an install that failed first)
            s.idle_task_count = self._saved_idle_task_count  # refilled below
            self._saved_idle_task_count.clear()
        if self._task_to_msg is not None and s.__dict__.get("_task_to_msg") is self._task_to_msg:
            del s._task_to_msg
        confirmed, self._steal_confirmed = self._steal_confirmed, None
        handlers = getattr(s, "stream_handlers", None)
        if confirmed is not None and handlers is not None \
                and handlers.get("steal-response") is confirmed:  # fmt: skip
            handlers["steal-response"] = confirmed.__wrapped__
        for name, saved in self._saved.items():
            if saved is _MISSING:
                s.__dict__.pop(name, None)
            else:
                setattr(s, name, saved)
        if self._server:
            from . import server

            server.detach(self, s)
        s.WORKER_SATURATION = self._saved_saturation
        for ws in s.workers.values():
            s.check_idle_saturated(ws)
        stimulus_id = f"tidegate-uninstall-{next(self._pokes)}"
        if s.queued:
            if math.isinf(s.WORKER_SATURATION):
                # dask without queuing has no queue: let the tasks be decided afresh.
                self._apply({ts.key: "released" for ts in s.queued.sorted()}, stimulus_id)
            elif hasattr(s, "stimulus_queue_slots_maybe_opened"):
                s.stimulus_queue_slots_maybe_opened(stimulus_id=stimulus_id)
        restricted.hand_back(self, s, stimulus_id)  # held in no-worker by a limit
        logger.info("tidegate uninstalled")

    def _watch_steals(self, scheduler) -> None:
        """Wrap the steal-response handler: a steal confirmed (stealing's
        move_task_confirm) sets the task's processing_on without a transition; the kept
        combine views that read the task go (Plugin._combines_of). Restored by uninstall."""
        original = _steal_handler(scheduler)
        if original is None:
            return
        plugin = self

        def confirmed(*args, **kwargs):
            try:
                return original(*args, **kwargs)
            finally:
                key = kwargs.get("key")
                if plugin._viewed and key in plugin._viewed:
                    plugin._view_moved(key)
                if plugin.scheduler is scheduler:
                    plugin._stolen(key)

        confirmed._tidegate = True
        confirmed.__wrapped__ = original
        scheduler.stream_handlers["steal-response"] = self._steal_confirmed = confirmed

    def _stolen(self, key) -> None:
        """A steal confirmed moves processing task ``key`` to the thief without a
        transition: where the books still have it elsewhere, its record moves as a start
        there (else the thief, running it, is booked idle: review50), and the kept walks
        that read it are stamped (``_moving``, as a transition does). A reschedule went
        through transitions: the books agree, nothing to do. No poke: the victim's freed
        thread waits for the next event, as dask's queue does after a steal."""
        ts = self.scheduler.tasks.get(key)
        ws = ts.processing_on if ts is not None else None
        if ws is None or self.books.processing_on(key) in (ws.address, None):
            return
        try:
            sid = "tidegate-steal"
            self._moving(key)  # (a kept walk that read its worker is stale: rev50m)
            self.books.on_stopped(key, sid)
            if self.limits.caps:
                self.limits.on_done(key)  # (_began counts it again: limits are cluster-wide)
            self._began(key, sid)
        except Exception as exc:  # (inside dask's stream handler: never raise there)
            self._error("steal", exc)
            try:
                self._resync()
            except Exception as exc2:
                self._error("resync", exc2)

    def _steals_seen(self) -> bool:
        """Is every steal confirmation seen (_watch_steals), or is there no stealing?"""
        handler = _steal_handler(self.scheduler)
        return handler is None or handler is self._steal_confirmed

    def _resync(self) -> None:
        """Books rebuilt from the scheduler's state (install, restart, after an error).
        Until one completes (``_whole``), poke releases the queue as dask does: tasks
        queued meanwhile may be in no line of ours, and a queue nobody releases hangs."""
        s = self.scheduler
        self._whole = False
        self.books = Books(self.policy)
        self.books.count_passes = True
        # Tree-reduction combines one level up from partials done on a worker: address ->
        # {combine key: its TaskState} (noted by _note_combine, read and pruned by
        # _combines_of: books.combines).
        self._combines: dict = {}
        # The combine views kept (_combines_kept): address -> _combines_of's answer, and
        # key -> the addresses whose kept view read that task (dropped when it changes).
        self._views: dict = {}
        self._viewed: dict = {}
        self.books.combines = self._combines_of
        self.books.loads_data = self._unreserve_readers_of
        self.books.leads_on = self._leads_on
        self.books.light = self._light_on if LIGHT_RELEASE else None  # (_starts_by_walk)
        self.books.noted = self._combines
        # Held bytes are dask's managed bytes alone (no budget, no unmanaged): _measure
        # reduces to one read (_refresh does it inline; a budget of inf measures alike).
        self._plain = self.memory_limit is None and not self.count_unmanaged
        self.limits = Limits(self._limits_arg or {})
        self._limit_cache: dict = {}
        self._shared_pids = None
        self._is_root_cache: dict = {}
        # Queued roots' meeting plans (policy.meeting_plan), key -> (ts, plan): what their
        # meeting walks find in the graph, kept while no graph is added and no task is
        # forgotten (either may change the edges), each until its root starts; and the
        # chains they walked, shared by the roots of one meeting (at most CHAINS_KEPT).
        self._plans: dict = {}
        self._regions: dict = {}  # name -> (group, its size, regions, sizes): _region_of
        self._shorts: dict = {}  # name -> (group, policy.unit_waits_short's): _stagger
        self._gathers_kept: dict = {}  # key -> (ts, policy.gathers_further's): _gathers
        self._chains: dict = {}
        # With policy.OWED_FAST 2: the plans of roots placed opening meetings (reserving
        # the roots they lack), key -> [ts, plan, policy.mirrored_inputs or False (not
        # read yet), {id(root): (root, policy.mirror_holds)} or None], kept like _plans but
        # past their start (their reserved roots' placements read them), at most WALKS_KEPT.
        self._opened: dict = {}
        # Refused roots' walks (meeting_partners, further_meeting), key -> [ts, [partners'
        # answers, further's or None], stamp, keys looked at]: kept while none of the
        # tasks the walks look at moved (a transition, a replica added or dropped: stamped
        # in _moves when it happens, _moved the last stamp). Why: a root refused is placed
        # again at every wake of its worker (twin rechunk-add 100x4: 6,161 refused
        # placements for 6,252 tasks, each walking its meetings).
        self._walks: dict = {}
        self._moves: dict = {}  # key looked at by a kept walk -> when it last moved
        self._moved = 0
        self._entry = None  # the walks of the root being placed (_walk, _further)
        # Roots _decide parked on their further meeting's busy worker (policy.
        # passes_for_further), key -> (ts, kept walks entry, lacked keys, meeting plan;
        # the plan is structural: dropped with it, in _forget_walks): placed again
        # while those walks hold, the answer is books.place's over the same hint
        # (_waits_again), without _decide's way there. Why: such a root is woken at about
        # every task end on that worker and parked again (twin rechunk-add 100x4: 6,161
        # placements for 6,252 tasks).
        self._further_parks: dict = {}
        # Of those, per worker k they are parked on: (what their refusal read of k's book at
        # its last wake, {root: its park entry} that stayed then): not asked again until k
        # changes so (Admission._wake); _stay_sides: the tests' audit's record of them.
        self._stays: dict = {}
        self._stay_sides: dict = {}
        self._parks_further = None  # the root _decide just parked so (for _place)
        self._lookups: dict = {}  # key -> (ts, walked_tasks, further_tasks or None)
        self._fplans: dict = {}  # key -> (ts, policy.further_plan), kept like _plans
        self._lacked: set = set()  # the last placed root's lacked roots (_wake_lacked)
        # The last root _decide withheld for "free workers" with no partners and no hint
        # from its kept walks: (ts, kept walks entry, lacked keys, plan.further, _kept(ts)).
        # Placed again while what that answer read is unchanged, the answer is the same
        # (_still_withheld), without _decide's way there. Why: the best queued root,
        # refused so, is placed again at every poke while the scan stops at it (twin
        # rechunk-add 100x4: one root 1,600 times, ~480 bytecodes each).
        self._withheld = None
        # Prefixes computed from nothing whose results are tiny (policy.tiny_prefix): no
        # roots. _tiny_most: prefix -> its largest result so far, until judged tiny;
        # _tiny_pending: its queued tasks, out of the roots' line, for the next poke.
        self._tiny_most: dict = {}
        self._tiny_prefixes: set = set()
        self._tiny_not: set = set()  # prefixes judged once not tiny (data, or read by roots)
        self._tiny_pending: list = []
        self._footprint_seen = 0.0  # books.largest_root when _check_footprint last looked
        self._context = None
        self._open: set = set()  # addresses that may take a root (books.may_take_some)
        self._held = set() if s is None else restricted.held_by_limits(self, s)
        kept = self.__dict__.get("_broadcast")  # (its senders' verdict: Broadcast.keep)
        self._broadcast = Broadcast(dask.config.get("tidegate.distributed.broadcast", True))
        self._broadcast.keep(kept)
        self._broadcast.flush = self._flush_starts  # (a copy's message after poke's starts)
        # Workers that may take a root without partners (in flight below the count, under
        # budget, or idle) as (load, address): the least loaded first, without a sort per
        # decision. _free_key: address -> its entry. A plain sorted list: its add and remove
        # are one bisect and one memmove in C, where a SortedList's cost ~45 bytecodes
        # (a worker's load changes at nearly every task start and end).
        self._free: list = []
        self._free_key: dict = {}
        # Of the free workers, each one's (free_thread, slots used - cap) and how many have
        # each (policy.may_fit_count): a root without partners that none could admit by
        # the count is refused without asking each (_place).
        self._count: dict = {}
        self._counts: dict = {}
        # Queued tasks poke may try, best first: dask's queue minus the parked ones.
        self._ready = _Lines(self._root, self._is_root_cache)
        # Parked: queued roots waiting for a partner's busy worker (or tasks waiting for a
        # full limit), indexed by what they wait for ({address or ("limit", name): {ts}}),
        # woken when that worker may take a root again (or a task of that limit ends).
        # poke never looks at a parked task: its cost is the roots it can decide, not the
        # roots waiting.
        self._parked: dict = {}  # ts -> what it waits for
        # of those, roots waiting for their own reduction that may start on a busy worker
        # (_splits): _split looks at them when no worker is idle
        self._parked_kept: dict = {}
        # of those, roots parked by the first wave's share (Placement._first_share,
        # FIRST_SHARE 2): _first_split looks at them when no root is left in line
        self._first_parked: dict = {}
        self._kept_cache: dict = {}  # key -> (ts, policy.waits_for_own_reduction)
        # root group -> {worker: compute seconds of its last two roots there} (_paced), for
        # the groups whose roots _by_held placed (policy.clearly_slower)
        self._pace: dict = {}
        self._uneven: set = set()  # groups whose roots' paces differ (_uneven: IDLE_WAKE)
        self._pace_moved: set = set()  # keys _off_lagging moved by pace (PACE_STAYS)
        # of those, the groups where a worker was found clearly slower: work stealing may
        # move non-roots while any is (policy.steals_beside_slower, server._inputs_all_here)
        self._slow_groups: set = set()
        # of those, the groups whose loads went by pace to a worker steadily slower than
        # another (policy.paced_slower, paced_keeps: PACE_HELD): while any is, consumers go by
        # the soonest end (policy.PACE_CONSUMERS, Placement._off_lagging)
        self._paced_groups: set = set()
        # of the root groups, those an idle worker took a root of over its even share
        # (policy.slower_alone): while any is, a later reduction level goes where the held
        # bytes are least (policy.IDLE_COMBINE, Placement._idle_load)
        self._idle_groups: set = set()
        # group reading the roots of a group in _pace -> (that root group, {worker: compute
        # seconds of its last two there}) (policy.lags); reader group -> (worker, the longer
        # of its last two) the fastest seen; worker -> how many times slower it lags
        # (Placement._off_lagging)
        self._readers: dict = {}
        # root group of a reader group in _readers -> {worker: compute seconds of its last
        # policy.LAG_SAMPLES there, newest first} (policy.lags_persist)
        self._lag_roots: dict = {}
        self._lag_ref: dict = {}
        self._lagging: dict = {}
        self._parked_ts: dict = {}  # key -> ts (dask reports transitions by key)
        self._waiting_on: dict = {}
        # Queued readers held for a copy of a shared input (broadcast.py), apart: all are
        # woken whenever a copy starts, lands or is dropped (and by the timer and a worker
        # leaving), and nearly all stay held. A worker they are held on is not idle
        # (Books.expecting): they run there once the copy lands.
        self._copies = Held(self.books.changed)
        self.books.expecting = self._copies.addresses()
        # A root without partners that nobody could take, and the count of workers that
        # opened or became free so far: until another does, poke stops at it again
        # without walking its graph (slot openings far outnumber workers opening).
        self._epoch = 0
        self._blocked = None
        self._blocked_tail, self._tail_asked = False, None  # (TAIL_THREAD_FREE: Admission)
        # A wave of roots after a stall (policy.over_wave_share): None, or [share,
        # {address: roots taken}, addresses that took their share, the wave's keys, the
        # most threads of those] (Admission._in_wave); _stalled: poke found every worker
        # full.
        self._wave = None
        self._stalled = False
        self._wave_not = None  # the worker last found not only loading roots (_in_wave)
        self._looked: dict = {}  # address -> running when last looked at (_refresh)
        self._idle: set = set()  # addresses open for roots with nothing processing
        self._copies_seen = -1  # the broadcast generation the parked held readers saw
        if s is None:
            return
        for ts in s.queued:
            self._ready.add(ts)
        for ws in s.workers.values():
            self._book(ws)
        for ts in s.tasks.values():
            if ts.state == "processing" and ts.processing_on is not None:
                ws = ts.processing_on
                self.books.on_run(ts.key, ws.address, self._root(ts), ts.group.name, math.nan,
                                  "tidegate-resync")  # fmt: skip
                if self.limits and self._limit_names(ts):
                    self.limits.on_run(ts.key, self._limit_names(ts))
        for ts in s.tasks.values():
            # Root outputs no consumer has used yet count as loaded data in flight.
            if ts.state == "memory" and ts.who_has and ts.dependents and self._root(ts):
                if not any(d.state in ("memory", "erred") for d in ts.dependents):
                    ws = min(ts.who_has, key=lambda w: w.address)
                    self.books.on_run(ts.key, ws.address, True, ts.group.name, math.nan,
                                      "tidegate-resync")  # fmt: skip
                    self.books.on_finished(ts.key, max(ts.nbytes, 0), (), False, True,
                                           "tidegate-resync")  # fmt: skip
        self._refresh_all()
        self._whole = True

    # -- safety ---------------------------------------------------------------------------
    def _guard(self, name, fn):
        """``fn`` in place of dask's ``name``; dask's original for a call that raises. (The
        hooks dask calls per task, is_rootish, decide_worker_non_rootish and
        decide_worker_rootish_queuing_enabled, are installed as the plugin's methods
        themselves with this test and fallback written in: no wrapper's frame, cpu47.)"""
        original = self._orig[name]
        plugin = self

        def guarded(*args, **kwargs):
            if plugin.scheduler is None or plugin._fallback:
                return original(*args, **kwargs)
            try:
                return fn(*args, **kwargs)
            except Exception as exc:
                plugin._failed(name, exc)
                return original(*args, **kwargs)

        guarded.__name__ = name
        guarded.__wrapped__ = fn
        return guarded

    def _failed(self, where, exc) -> None:
        """A replaced method raised: the placement it was for forgotten (``_context``),
        the error logged once (``_error``); the caller then runs dask's own for the call
        (``_guard``'s wrapper, and the per-task hooks that have its test written in)."""
        self._context = None
        self._error(where, exc)

    def _error(self, where, exc) -> None:
        self.errors.append((where, repr(exc), traceback.format_exc()))
        del self.errors[:-100]
        if (where, type(exc)) not in self._logged:
            self._logged.add((where, type(exc)))
            logger.error("tidegate: %s failed; dask's own behaviour used for this call",
                         where, exc_info=exc)  # fmt: skip


def _steal_handler(scheduler):
    """The scheduler's steal-response stream handler (stealing's move_task_confirm), or
    None."""
    handlers = getattr(scheduler, "stream_handlers", None)
    return None if handlers is None else handlers.get("steal-response")


def _drops_all_in_transitions(scheduler) -> bool:
    """Is ``scheduler``'s remove_all_replicas dask's as _DROPS_ALL_NAMES reads it, not
    overridden on the instance, and called by its class only from _DROPS_ALL_CALLERS?"""
    if "remove_all_replicas" in scheduler.__dict__:
        return False
    cls = type(scheduler)
    known = _drops_all.get(cls)
    if known is None:
        callers = {name for klass in cls.__mro__ for name, value in vars(klass).items()
                   if _calls(getattr(getattr(value, "__func__", value), "__code__", None),
                             "remove_all_replicas")}  # fmt: skip
        known = _drops_all[cls] = (
            recompile.same_shape(getattr(cls, "remove_all_replicas", None), _DROPS_ALL_NAMES)
            and callers <= _DROPS_ALL_CALLERS)
    return known


def _calls(code, name) -> bool:
    """Does ``code`` (or a function nested in it) read ``name``?"""
    if code is None:
        return False
    return name in code.co_names or any(
        _calls(c, name) for c in code.co_consts if hasattr(c, "co_names"))

