"""tidegate's policy inside a dask ``SchedulerState``: the plugin, with no loop and no server.

The decisions are books.py's and policy.py's; this file translates dask's events into the
books (``transition``, worker hooks) and executes decisions through the few scheduler
methods it replaces on the instance (never the class):

``is_rootish(ts)``
    Structural root detection (:func:`tidegate.policy.is_root`). It also remembers the
    task: the next call, ``decide_worker_rootish_queuing_enabled()``, receives none.
``decide_worker_rootish_queuing_enabled()``
    Placement (books.place: co-assignment, admission) among the workers open for roots,
    which the books keep current from the workers each event touched; behind a better
    queued root, or with no worker open, ``None`` (queue it) at O(1). For a root that
    :meth:`Plugin.poke` moves out of the queue, the worker poke chose.
``check_idle_saturated``
    dask's own bookkeeping, without the statement that fills ``idle_task_count``
    (trim.py); ``idle_task_count`` is replaced by a set that stays empty: tidegate owns
    the queue. Under a budget, then the memory gate: a busy worker over its budget is not
    "idle" (work stealing and dask's fast paths leave it alone).

Each replaced method falls back to dask's original for a call that raises; the error is
kept in ``Plugin.errors`` and logged once per method. An error in the books' bookkeeping
(``transition``) also rebuilds the books from the scheduler's state.

Server parts (timer, ``stimulus_queue_slots_maybe_opened``, stealing, noticing removal)
live in server.py and are applied only to a live ``Scheduler``. The twin installs the same
plugin on a ``SchedulerState`` subclass with ``install(state, apply=...)`` and calls
``poke(stimulus_id)`` on its virtual tick. No decision reads a clock.
"""

from __future__ import annotations

import heapq
import itertools
from bisect import bisect_left, insort
import logging
from itertools import chain, compress, filterfalse
import math
import operator
import traceback
from functools import partial
from types import MethodType

import dask.config
from dask._task_spec import DataNode
from dask.utils import format_bytes, key_split
from distributed.diagnostics.plugin import SchedulerPlugin
from sortedcontainers import SortedDict

from .. import config
from ..annotations import LIMIT, ROOT, check_limits, merge
from ..books import Books, Limits
from . import broadcast, holders, restricted, trim
from .broadcast import Broadcast
from .held import Held
from ..policy import (
    HANDLE_MAX_BYTES,
    SHARED_FANOUT,
    MeetingPlan,
    Policy,
    further_by_plan,
    further_meeting,
    further_plan,
    further_plan_tasks,
    further_tasks,
    walked_tasks,
    halo_depth,
    holds_data,
    judged_again,
    rejudged_on,
    is_root,
    joins_started_fan_in,
    may_fit_count,
    meeting_partners,
    meeting_plan,
    place_consumer,
    own_input,
    read_on,
    footprint_refused,
    frees_slot,
    frees_slot_on,
    reduces as policy_reduces,
    second_input,
    sized_by_prefix,
    unrun_input_size,
    sole_holder,
    passes_for_group,
    places_by_held,
    clearly_slower,
    reduced_enough,
    waits_for_own_reduction,
)
from .. import policy as policy_module  # (FREES_SLOT read per decision: tests set it)

logger = logging.getLogger("tidegate.distributed")

NAME = "tidegate"
_MISSING = object()
# SchedulerState methods replaced on the instance, with the parameters we expect (after
# self). "*name": keyword-only; "name=": has a default.
STATE_HOOKS = {
    "is_rootish": ("ts",),
    "decide_worker_rootish_queuing_enabled": (),
    "check_idle_saturated": ("ws", "occ="),
    "decide_worker_non_rootish": ("ts",),
}
WINDOW = 256  # queued roots examined per poke, at most
CHAINS_KEPT = 10_000  # chains kept for meeting plans (Plugin._plan), at most
WALKS_KEPT = 4096  # queued roots' walks kept (Plugin._walks), at most
# dask's methods that change where a task is held besides its transitions (a copy landing,
# a replica dropped): the plugin's versions stamp the task (Plugin._moves) and call dask's.
REPLICA_HOOKS = ("add_replica", "remove_replica", "remove_all_replicas")


def _budget(value):
    """-> (bytes or a fraction of each worker's memory_limit, or None: unlimited; whether a
    fraction). The rule is config.size's: a string is always a size ("1B" is one byte)."""
    if value is None or value == "none":  # (as the thread runtime's "none")
        return None, False
    if value == "auto":
        raise ValueError("memory_limit='auto' is the thread runtime's; on a cluster give a "
                         "fraction of each worker's memory_limit (0.5) or a size ('4GB')")
    budget = config.size(value, fractions=True)
    return budget, not isinstance(value, str) and budget <= 1


class Plugin(SchedulerPlugin):
    """Run tidegate's policy inside the dask scheduler it is registered with.

    ``saturation``: roots in flight per worker = ``ceil(saturation x threads)`` (default:
    dask.config ``tidegate.distributed.saturation``, else ``tidegate.saturation``).
    ``memory_limit``: each worker's budget for held bytes: a string is always a size
    (``"4GB"``), a number in (0, 1] a fraction of the worker's own ``memory_limit``, a larger
    number bytes; None: unlimited.
    ``interval``: how often the queue is re-examined without a stimulus (live scheduler).
    ``count_unmanaged``: add the heartbeat's recent unmanaged memory to held bytes (only
    meaningful when each worker is its own process).
    ``chain_keep``: see :class:`tidegate.policy.Policy` (``inf``: a root's slot frees at
    its first consumer, as before roots were counted by the data they load).
    ``limits``: ``{name: tasks processing at once, cluster-wide}`` for tasks annotated
    ``dask.annotate(tidegate_limit=name)``; default: dask.config ``tidegate.limits`` read
    where the scheduler runs (when the plugin is installed there). Limited tasks go through
    the scheduler's queue; one is sent to a worker only while its limits have room.
    """

    name = NAME

    def __init__(
        self,
        saturation: float | None = None,
        memory_limit=None,
        interval="250ms",
        count_unmanaged: bool = False,
        chain_keep: float | None = None,
        limits: dict | None = None,
    ):
        if saturation is None:
            saturation = dask.config.get(
                "tidegate.distributed.saturation", dask.config.get("tidegate.saturation", 1.1)
            )
        keep = Policy.chain_keep if chain_keep is None else chain_keep
        self.policy = Policy("tidegate", saturation, probe=True, chain_keep=keep)
        if math.isinf(self.policy.saturation):
            raise ValueError("saturation must be finite; for no withholding use dask's "
                             "distributed.scheduler.worker-saturation: inf without tidegate")
        if memory_limit is None:
            memory_limit = dask.config.get("tidegate.distributed.memory-limit", None)
        self.memory_limit, self.memory_fraction = _budget(memory_limit)
        # (checked here: tornado refuses a timer of 0 only when the plugin starts, and
        # review21's "0s" left the hooks half-installed)
        self.interval = config.duration(interval, "interval", zero_ok=False,
                                        example=("0.25", "250ms"))
        self.count_unmanaged = bool(count_unmanaged)
        self._limits_arg = None if limits is None else check_limits(limits)
        self.limits = Limits(self._limits_arg or {})
        self.scheduler = None
        self.errors: list = []  # (method, exception repr, traceback): tests assert empty
        self._fallback = False  # True while dask's own methods run for one call

    def __getstate__(self):
        state = dict(self.__dict__)
        state["scheduler"] = None
        state["errors"] = []
        for k in [k for k in state if k.startswith("_") and k != "_limits_arg"]:
            del state[k]
        state["limits"] = None
        return state

    # -- SchedulerPlugin ------------------------------------------------------------------
    async def start(self, scheduler) -> None:
        self.install(scheduler)

    async def close(self) -> None:
        self.uninstall()

    def restart(self, scheduler) -> None:
        if self.scheduler is scheduler:
            self._resync()

    def add_worker(self, scheduler, worker) -> None:
        self._shared_pids = None
        if self.scheduler is not None:
            ws = scheduler.workers.get(worker)
            if ws is not None:
                try:
                    self._book(ws)
                except Exception as exc:  # (dask would log it at every worker)
                    self._error("add_worker", exc)

    def remove_worker(self, scheduler, worker, **kwargs) -> None:
        """Called after dask moved the worker's tasks. Roots whose loaded data survives on
        another worker (replicas) are counted there; nothing is left booked to ``worker``."""
        self._shared_pids = None
        if self.scheduler is None:
            return

        def locate(key):
            ts = scheduler.tasks.get(key)
            if ts is None or not ts.who_has:
                return None
            return min(ws.address for ws in ts.who_has)

        try:
            self._set_free(worker, None)
            self._open.discard(worker)
            self._idle.discard(worker)
            self._combines.pop(worker, None)
            if worker in self._waiting_on:
                self._wake(worker)
            self._copies.wake()  # a held reader's worker may be the one leaving
            self._broadcast.drop_worker(worker)  # (its WorkerState is kept nowhere else)
            self.books.remove_worker(worker, locate, kwargs.get("stimulus_id"))
        except Exception as exc:
            self._error("remove_worker", exc)
            try:
                self._resync()
            except Exception as exc2:
                self._error("resync", exc2)

    def update_graph(self, scheduler, **kwargs) -> None:
        if self.scheduler is None:
            return
        try:
            self._new_graph(scheduler, kwargs)
        except Exception as exc:  # (dask would log it at every graph)
            self._error("update_graph", exc)
            self._forget_plans()
        # Its roots were queued (placement happens in poke): look at the queue soon.
        if self._server:
            from . import server

            server.soon(self, scheduler, self._tick)

    def _new_graph(self, scheduler, kwargs) -> None:
        self._forget_plans()  # the new tasks may meet queued roots' data (dask added them)
        # A new computation: statistics of groups that are gone do not carry over.
        self.books.forget_groups(lambda g: g in scheduler.task_groups)
        if self._copies._entry:  # a new graph may give a held reader's input more readers
            self._copies.resig(self._broadcast.sig)
        # dask transitions a new graph's tasks in no particular order: with user priorities
        # the first roots would start before better ones are even seen. Queue them all;
        # poke (soon after) starts them best first.
        if kwargs.get("annotations", {}).get("priority"):
            self._queue_new = True

    def transition(self, key, start, finish, *args, stimulus_id=None, worker=None,
                   metadata=None, nbytes=None, startstops=None, status=None, thread=None,
                   type=None, typename=None, **kwargs) -> None:  # fmt: skip
        """Translate one dask transition into the books (called by dask after each).

        One method, the commonest moves first and nothing looked up that a move does not
        need: dask calls it 4-5 times per task (twin stack-sum, 100 workers: a quarter of
        the plugin's CPU). The keywords of a finished task's message (processing ->
        memory, once per task) are named: Python then binds them without building a
        ``**kwargs`` dict (1.5 -> 0.9 us a call); only ``worker`` is read."""
        if finish == "waiting" and (start == "released" or start == "waiting") \
                and worker is None:  # fmt: skip
            # the commonest move (every task's first) changes nothing booked, nor does
            # waiting -> waiting (a root dask queues: reported before waiting -> queued)
            return
        if self.scheduler is None:
            return
        if key in self._moves and (start != "processing" or finish != "memory"):
            # A kept walk looked at it (_keep_walk) and where it is changed: not when it
            # finishes (processing -> memory: on the worker it ran on, its one holder), the
            # walks read only where the tasks they look at are (_where) and sizes measured
            # before they were kept (rechunk-add 100x4: a third of the re-walks).
            self._moved += 1
            self._moves[key] = self._moved
        try:
            # By start, then by finish where that start can reach it (dask's table: from
            # processing to released, memory or erred; from memory to released, erred or
            # forgotten): one comparison, not three, for a task's finish and release.
            if start == "processing":
                self._left_processing(key, finish, stimulus_id, worker, startstops)
                if finish == "processing":  # a finish dask refused: it stays there
                    self._began(key, stimulus_id)
            elif start == "memory":
                books = self.books
                if key in books._carriers:  # (books.on_released, without its call: hot)
                    books.on_released(key, stimulus_id)
                if finish == "forgotten":
                    self._forgotten(key)
            else:
                if start == "queued":
                    ts = self._parked_ts.get(key)
                    if ts is not None:
                        self._unpark(ts)
                    self._ready.discard_key(key)
                    if self._copies._entry:
                        b = self._broadcast
                        self._copies.discard_key(key, b.held, b.generation)
                if finish == "processing":
                    self._began(key, stimulus_id)
                elif finish == "queued":
                    ts = self.scheduler.tasks.get(key)
                    if ts is not None:
                        self._ready.add(ts)
                elif finish == "forgotten":
                    self._forgotten(key)
            if worker is not None:  # its held bytes changed
                self.books.changed.add(worker)
        except Exception as exc:
            self._error("transition", exc)
            try:
                self._resync()
            except Exception as exc2:  # the books stay as rebuilt so far
                self._error("resync", exc2)

    def _forgotten(self, key) -> None:
        """Nothing kept for a forgotten task; kept walks drop (the graph changed)."""
        self._is_root_cache.pop(key, None)
        if self._offered:
            self._offered.discard(key)
        if self._plans or self._chains:  # its neighbours' edges changed
            self._forget_plans()
        b = self._broadcast
        if b.flight or b.held or b._seen or b._holders:
            b.forget(key)
        if self._limit_cache:
            self._limit_cache.pop(key, None)
        if self.books.root_results or self.books._loaded_max or self.books._join_groups \
                or self._pace:  # fmt: skip
            ts = self.scheduler.tasks.get(key)  # (dask puts it back for plugins)
            if ts is not None:
                self._group_going(ts.group)

    def _group_going(self, tg) -> None:
        """Statistics of group ``tg`` go when its last task is forgotten (dask drops the
        group after this transition). Not at the next graph only: that graph may bring a
        group of the same name (every dask.delayed call of one function is group "load"),
        made before update_graph runs, and was judged by the old group's sizes."""
        name, books = tg.name, self.books
        if name not in books.root_results and name not in books._loaded_max \
                and name not in books._join_groups and name not in self._pace:  # fmt: skip
            return
        states = tg.states
        if states.get("forgotten", 0) != sum(states.values()):
            return  # others of the group are still there
        books.forget_groups(name.__ne__)
        self._pace.pop(name, None)

    def _left_processing(self, key, finish, stimulus_id, worker=None, startstops=None) -> None:
        books = self.books
        # (limits.caps, not limits: Limits.__bool__ is a Python call on every transition)
        if self.limits.caps:
            self.limits.on_done(key)  # cluster-wide: nothing is held in Limits itself
            for name in self._limit_cache.get(key, ()):
                if ("limit", name) in self._waiting_on:
                    self._wake(("limit", name))
        if finish == "memory":
            ts = self.scheduler.tasks.get(key)
            if ts is None:
                books.on_stopped(key, stimulus_id)
                return
            deps = ts.dependencies
            if books._carriers:  # else no input carries anything: neither matters
                # data embedded in the graph (a DataNode, a handle) is not a second input
                single = len(deps) == 1 or (len(deps) > 1 and _one_data_input(ts, books._roots_max))
                inputs = list(map(_key, deps))
            else:
                single, inputs = False, ()
            nbytes = ts.nbytes
            if nbytes < 0:  # (max(nbytes, 0) without the builtin's call)
                nbytes = 0
            feeds = bool(ts.dependents)
            pieces = math.nan
            if self._is_root_cache.get(key):  # (_began filled it) only roots are looked at
                # A tiny result beside the largest root result of the computations present
                # (a store's None beside shared weights) is no data in flight, unless a
                # single-input task takes it on (open -> read): books.root_holds_data, as
                # core.py asks it (its group's first result of HANDLE_MAX_BYTES or more
                # calls _unreserve_readers_of: books.loads_data).
                # A handle-sized result counted as data only for want of a larger root
                # result yet is judged again when one finishes (policy.judged_again, grp29).
                largest = books.largest_root
                small = feeds and nbytes < HANDLE_MAX_BYTES and holds_data(nbytes, largest, False) \
                    and judged_again(nbytes, _chained(ts))  # fmt: skip
                feeds = books.root_holds_data(ts, ts.group.name, nbytes, feeds, _chained)
                if self._judged_small and books.largest_root > largest:
                    self._rejudge(books.largest_root)
                if small:  # (after _rejudge: its own result is no smaller than the largest)
                    self._judged_small[key] = nbytes
                if self._pace and startstops:  # (a group _by_held looked at: its paces)
                    paces = self._pace.get(ts.group.name)
                    if paces is not None and worker is not None:
                        _paced(paces, worker, startstops)
            elif feeds and len(deps) > 1:
                pieces = _pieces(deps)
                if len(ts.dependents) == 1:
                    self._note_combine(ts, worker)
            # (read_on is asked only of an input that carries data: no closure otherwise)
            read_on = partial(_read_on_key, ts, books, worker) \
                if single and not books._carriers.keys().isdisjoint(inputs) else None  # fmt: skip
            books.on_finished(key, nbytes, inputs, single, feeds, stimulus_id, pieces, read_on)
        elif finish == "erred":
            ts = self.scheduler.tasks.get(key)
            deps = [d.key for d in ts.dependencies] if ts is not None else ()
            books.on_failed(key, deps, stimulus_id)
        else:  # released / waiting: lost, rescheduled or cancelled; it may run again
            books.on_stopped(key, stimulus_id)

    def _note_combine(self, ts, worker) -> None:
        """ts (several inputs, one dependent) is done: if its dependent has ts's prefix
        (its key's name without the token) and combines tasks of ts's group alone (a tree
        reduction's next level: a mean's level-2 combine of 4 level-1 partials, all
        "mean_combine-partial"; not rechunk-add's add of two merges), note it at ts's
        worker (_combines_of). Once per such task."""
        (d,) = ts.dependents
        deps = d.dependencies
        group = ts.group
        if d.prefix is not ts.prefix or len(deps) < 2:  # (an add of two merges: no level)
            return
        for x in deps:
            if x.group is not group:
                return
        if not isinstance(worker, str):
            worker = next((ws.address for ws in ts.who_has or ()), None)
            if worker is None:
                return
        self._combines.setdefault(worker, {})[d.key] = d

    def _combines_of(self, addr) -> list:
        """books.combines: for each combine noted at addr (_note_combine) still to run,
        (its inputs done or computed at addr, at the worker with most of them, all of its
        inputs on their way: _on_their_way). Those placed (processing: dask chose their
        worker; gating there too, twin anomaly 100x4 1,200 steps peaked 1.03x queuing's
        against 0.90x) or done are dropped. Asked only for a root opening a meeting there
        (books._admits)."""
        combs = self._combines.get(addr)
        if not combs:
            return []
        out = []
        for key, d in list(combs.items()):
            state = d.state
            if state == "waiting":
                held: dict = {}
                for x in d.dependencies:  # (done there, or computed there)
                    for ws in x.who_has or ():
                        held[ws.address] = held.get(ws.address, 0) + 1
                    ws = x.processing_on
                    if ws is not None:
                        held[ws.address] = held.get(ws.address, 0) + 1
                here = held.get(addr, 0)
                if here:
                    out.append((here, max(held.values()), _on_their_way(d, 4)))
                    continue
            del combs[key]
        if not combs:
            del self._combines[addr]
        return out

    def _slower(self, group, addr, other) -> bool:
        """policy.clearly_slower of worker addr against worker other, at group's roots."""
        paces = self._pace.get(group)
        return paces is not None and clearly_slower(paces.get(addr), paces.get(other))

    def _rejudge(self, largest) -> None:
        """A root result larger than any so far finished: the roots whose results counted
        as data beside the smaller ones (policy.judged_again) and are tiny beside this one
        are no data in flight (policy.holds_data): their slots free."""
        books, tasks = self.books, self.scheduler.tasks
        judged, live, workers = self._judged_small, books._live, books.workers
        gone = []
        for key, nbytes in list(judged.items()):
            rec = live.get(key)
            if rec is None:
                del judged[key]  # its data landed, or it left
            elif not holds_data(nbytes, largest, False):
                del judged[key]
                book = workers.get(rec[0])
                ts = tasks.get(key)
                if book is not None and rejudged_on(book.threads) and ts is not None \
                        and not _read_soon(ts) and not self._feeds_roots(ts):  # fmt: skip
                    gone.append(key)
        if gone:
            books.unload(gone, "tidegate-rejudged")

    def _feeds_roots(self, ts) -> bool:
        """Is a reader of ts a root (ts a handle its loads read: twin weighted's
        original-open-u, read by its 100 chunk loads)? Then _rejudge leaves its slot:
        freed at the first load, a grid copy queued behind the other grid's into one
        worker (tests/test_small_cluster_twin.py, 8 x 4: 1.024x queuing's time)."""
        cache = self._is_root_cache
        for d in ts.dependents:
            root = cache.get(d.key)
            if root is None:
                root = _structural_root(d)
            if root:
                return True
        return False

    def _unreserve_readers_of(self, group) -> None:
        """Group's roots load data (one returned HANDLE_MAX_BYTES or more): a reader of
        one of its tasks, reserved as a handle's reader (a walk met a neighbour block not
        yet loaded, size unknown), is a consumer; the meeting lacks the block itself,
        reserved in its place while it waits. Kept until each reader ran (main), a
        stencil's first blocks reserved 13-62 halo slices per worker, which filled the
        in-flight count for most of the run: twin stencil 4x1, one block per worker at
        startup, 1.08x queuing's makespan."""
        tasks = self.scheduler.tasks

        def instead(key):
            ts = tasks.get(key)
            if ts is None:
                return None
            for d in ts.dependencies:
                if d.group.name == group and not _constant(d):
                    return d.key if d.state in _UNPLACED else None
            return key

        self.books.rereserve(instead, "tidegate-data")

    def _began(self, key, stimulus_id) -> None:
        ts = self.scheduler.tasks.get(key)
        ws = ts.processing_on if ts is not None else None
        if ws is None:
            return
        books = self.books
        addr = ws.address
        if addr not in books.workers:
            self._book(ws)
        root = self._is_root_cache.get(key)  # (_root's cache first: once per task)
        if root is None:
            root = self._root(ts)
        if root and self._plans:
            self._plans.pop(key, None)  # placed: not walked again unless it runs again
            self._walks.pop(key, None)
            self._lookups.pop(key, None)
            self._fplans.pop(key, None)
        books.on_run(key, addr, root, ts.group.name, math.nan, stimulus_id)
        deps = ts.dependencies
        if not root and len(deps) > 1 and books._carriers:  # (one input: never a consumer)
            # (_constant inlined: once per task)
            inputs = [d for d in deps
                      if d.run_spec is not None and not isinstance(d.run_spec, DataNode)]
            if len(inputs) > 1:
                for d in inputs:  # (a loop, not all() of a generator: once per task)
                    if ws not in d.who_has:
                        break
                else:
                    books.on_consuming(key, [d.key for d in inputs], stimulus_id,
                                       _pieces(inputs))  # fmt: skip
        if self.limits.caps:
            names = self._limit_names(ts)
            if names:
                self.limits.on_run(key, names)

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
        self._server = False
        self._task_to_msg = None
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
        self._queue_new = False  # queue every new root until the next poke
        self._offered: set = set()  # roots dask offered that reserved partners (_owed_first)
        self._resync()
        scheduler.WORKER_SATURATION = self.policy.saturation
        scheduler.is_rootish = self._guard("is_rootish", self._is_rootish)
        scheduler.decide_worker_rootish_queuing_enabled = self._guard(
            "decide_worker_rootish_queuing_enabled", self._decide_worker
        )
        # tidegate owns the queue: dask's count of workers with queue slots stays empty,
        # and dask's check_idle_saturated (twice per task) runs without the statement
        # that fills it, where that statement is as expected (trim.py), else as it is.
        trimmed = None
        if "check_idle_saturated" not in scheduler.__dict__:  # (not another's override)
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
        scheduler.decide_worker_non_rootish = self._guard(
            "decide_worker_non_rootish", self._decide_worker_non_rootish
        )
        scheduler._tidegate = self
        for name in REPLICA_HOOKS:
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
        self.books.combines = self._combines_of
        self.books.loads_data = self._unreserve_readers_of
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
        self._chains: dict = {}
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
        # Roots in flight whose small results counted as data beside the largest root
        # result then (policy.judged_again): key -> bytes; judged again by _rejudge.
        self._judged_small: dict = {}
        self._footprint_seen = 0.0  # books.largest_root when _check_footprint last looked
        self._context = None
        self._open: set = set()  # addresses that may take a root (books.may_take_some)
        self._held = set() if s is None else restricted.held_by_limits(self, s)
        self._broadcast = Broadcast(dask.config.get("tidegate.distributed.broadcast", True))
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
        self._ready = _Lines(self._root)
        # Parked: queued roots waiting for a partner's busy worker (or tasks waiting for a
        # full limit), indexed by what they wait for ({address or ("limit", name): {ts}}),
        # woken when that worker may take a root again (or a task of that limit ends).
        # poke never looks at a parked task: its cost is the roots it can decide, not the
        # roots waiting.
        self._parked: dict = {}  # ts -> what it waits for
        # of those, roots waiting for their own reduction that may start on a busy worker
        # (_splits): _split looks at them when no worker is idle
        self._parked_kept: dict = {}
        self._kept_cache: dict = {}  # key -> (ts, policy.waits_for_own_reduction)
        # root group -> {worker: compute seconds of its last two roots there} (_paced), for
        # the groups whose roots _by_held placed (policy.clearly_slower)
        self._pace: dict = {}
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
    def _guard(self, name, fn, original=None):
        """``fn`` in place of dask's ``name``; dask's original for a call that raises.
        The hooks dask calls per task take their arguments as dask passes them (no
        ``*args``/``**kwargs`` packing: tens of thousands of calls per graph)."""
        original = original if original is not None else self._orig[name]
        plugin = self

        def failed(exc, args, kwargs):
            plugin._context = None
            plugin._error(name, exc)
            return original(*args, **kwargs)

        if name in ("is_rootish", "decide_worker_non_rootish"):
            def guarded(ts):
                if plugin._fallback or plugin.scheduler is None:
                    return original(ts)
                try:
                    return fn(ts)
                except Exception as exc:
                    return failed(exc, (ts,), {})
        elif name == "decide_worker_rootish_queuing_enabled":
            def guarded():
                if plugin._fallback or plugin.scheduler is None:
                    return original()
                try:
                    return fn()
                except Exception as exc:
                    return failed(exc, (), {})
        elif name == "stimulus_queue_slots_maybe_opened":
            def guarded(*, stimulus_id):
                if plugin._fallback or plugin.scheduler is None:
                    return original(stimulus_id=stimulus_id)
                try:
                    return fn(stimulus_id=stimulus_id)
                except Exception as exc:
                    return failed(exc, (), {"stimulus_id": stimulus_id})
        else:
            def guarded(*args, **kwargs):
                if plugin.scheduler is None or plugin._fallback:
                    return original(*args, **kwargs)
                try:
                    return fn(*args, **kwargs)
                except Exception as exc:
                    return failed(exc, args, kwargs)

        guarded.__name__ = name
        guarded.__wrapped__ = fn
        return guarded

    def _error(self, where, exc) -> None:
        self.errors.append((where, repr(exc), traceback.format_exc()))
        del self.errors[:-100]
        if (where, type(exc)) not in self._logged:
            self._logged.add((where, type(exc)))
            logger.error("tidegate: %s failed; dask's own behaviour used for this call",
                         where, exc_info=exc)  # fmt: skip

    def describe(self) -> str:
        budget = "unlimited" if self.memory_limit is None else (
            f"{self.memory_limit:g} of each worker's memory_limit" if self.memory_fraction
            else f"{self.memory_limit:.0f} bytes per worker"
        )
        return f"saturation={self.policy.saturation}, budget {budget}"

    # -- views of a worker ----------------------------------------------------------------
    def budget(self, ws) -> float:
        b = self.memory_limit
        if b is None:
            return math.inf
        if self.memory_fraction:
            return b * ws.memory_limit if ws.memory_limit else math.inf
        return b

    def _book(self, ws):
        book = self.books.workers.get(ws.address)
        if book is None:
            book = self.books.add_worker(ws.address, ws.nthreads or 1, self.budget(ws))
            if self.memory_fraction and not ws.memory_limit \
                    and ("no-limit", ws.address) not in self._logged:  # fmt: skip
                # A fraction of no limit is no budget: Plugin(memory_limit=0.5) on
                # LocalCluster(memory_limit=0) ran unbounded, silently (probe24).
                self._logged.add(("no-limit", ws.address))
                logger.warning(
                    "tidegate: memory_limit=%g is a fraction of each worker's memory_limit, "
                    "but worker %s has none: its budget is unlimited (roots bounded by count "
                    "only). Give the workers a memory_limit, or the plugin a size ('2GB').",
                    self.memory_limit, ws.address)
        return book

    def _measure(self, ws):
        """Copy dask's measured bytes for ws into its book (decisions read the book).

        Held: the managed bytes (``WorkerState.nbytes``, current to the last message), or,
        under a budget, the process memory of the last heartbeat if that is larger:
        temporaries, leaks and unmanaged memory count, as in dask's own thresholds
        (which compare process memory to the worker's ``memory_limit``). A heartbeat
        still showing data freed since makes the worker wait one more heartbeat at most:
        the timer looks at every worker afresh."""
        book = self._book(ws)
        held = ws.nbytes
        if self.count_unmanaged:
            held += max(0, ws.memory.unmanaged_recent)
        if book.budget < math.inf and self._own_process(ws):
            metrics = getattr(ws, "metrics", None) or {}
            memory = metrics.get("memory", 0) or 0
            if memory > book.budget and not ws.nbytes and not ws.processing \
                    and ("idle", ws.address) not in self._logged:  # fmt: skip
                # Idle and above the budget already: every root would wait for idleness
                # (review21: memory_limit=0.5 of a 300 MB worker, 1.5x dask's time, silent).
                self._logged.add(("idle", ws.address))
                logger.warning(
                    "tidegate: worker %s uses %s of process memory with nothing held, above "
                    "its budget of %s: it starts roots only when idle. Raise memory_limit.",
                    ws.address, format_bytes(memory), format_bytes(book.budget))
            held = max(held, memory)
            book.spilled = ((metrics.get("spilled_bytes") or {}).get("disk", 0)) or 0
        book.held = held
        return book

    def _own_process(self, ws) -> bool:
        """Is ws alone in its process? Workers sharing one (LocalCluster(processes=False))
        all report the same process memory: it says nothing about one of them."""
        pid = getattr(ws, "pid", None)
        if not pid or self.scheduler is None:
            return True
        shared = self.__dict__.get("_shared_pids")
        if shared is None:  # computed once per change of workers: O(workers)
            seen: set = set()
            shared = set()
            for other in self.scheduler.workers.values():
                k = (getattr(other, "host", None), other.pid)
                (shared if k in seen else seen).add(k)
            self._shared_pids = shared
        return (getattr(ws, "host", None), pid) not in shared

    def held_bytes(self, ws) -> float:
        """Bytes the scheduler knows ws holds (``WorkerState.nbytes``, replicas included)
        plus the estimated outputs of its processing tasks (plus unmanaged, if asked)."""
        book = self._measure(ws)
        return book.held + book.estimated

    def roots_in_flight(self, ws) -> int:
        book = self.books.workers.get(ws.address)
        return 0 if book is None else book.roots_in_flight

    def _limit_names(self, ts) -> tuple:
        """The limits (with a cap) task ts counts against; () for most tasks."""
        names = self._limit_cache.get(ts.key)
        if names is None:
            names = ()
            if self.limits and ts.annotations and not ts.actor:
                value = ts.annotations.get(LIMIT)
                if value:
                    names = tuple(n for n in merge(LIMIT, [value]) if n in self.limits.caps)
            self._limit_cache[ts.key] = names
        return names

    def _size(self, ts) -> float:
        """ts's output size for policy.is_handle on a graph walk: measured, else the
        largest result a root of its group returned (a task with no inputs not yet run
        loads as much as its siblings did), else NaN (unknown: a handle by structure)."""
        n = ts.nbytes
        return n if n >= 0 else self.books.root_results.get(ts.group.name, math.nan)

    def _root(self, ts) -> bool:
        r = self._is_root_cache.get(ts.key)
        if r is None:
            r = self._is_root_cache[ts.key] = _structural_root(ts)
        return r

    # -- the replaced scheduler methods ---------------------------------------------------
    def _is_rootish(self, ts) -> bool:
        # Limited tasks go through the queue too: sent to a worker only with room; so do
        # readers of a widely shared input: sent only where it is or is on its way.
        cache = self._is_root_cache  # (self._root inlined: once per task, dask's ask)
        root = cache.get(ts.key)
        if root is None:
            root = cache[ts.key] = _structural_root(ts)
        if root or (self.limits.caps and self._limit_names(ts)
                    and not restricted.restricted(ts)) \
                or self._broadcast.shared(ts):  # fmt: skip
            context = self._context
            if context is None or context[0] is not ts:  # keep poke's choice for ts
                self._context = (ts, None)
            return True
        return False

    def _decide_worker(self):
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
            return self._broadcast.place(s, ts, s.decide_worker_non_rootish)
        if ts.state == "waiting" and s.queued and s.queued.peek().priority < ts.priority:
            return None  # strict priority: queue behind better withheld roots
        self._update()
        if not self._open:
            return None  # O(1) once every worker is full: a big graph queues cheaply
        addr, _ = self._place(ts)
        ws = None if addr is None else s.workers.get(addr)
        if ws in s.running:
            if ts.state == "waiting" and ts.key in self.books._owing:
                # dask offers a new graph's roots in an order its sets decide: this one
                # opened a meeting out of priority order (see _owed_first)
                self._offered.add(ts.key)
            return ws
        return None

    def _decide_worker_non_rootish(self, ts):
        """dask's choice, unless another worker holds more of the task's own input bytes
        (:func:`tidegate.policy.place_consumer`; inputs read by many tasks left out).
        None (``no-worker``) for a restricted task whose limit is full."""
        s = self.scheduler
        if self.limits.caps and restricted.restricted(ts) and restricted.hold(self, ts):
            return None
        decide = self._orig["decide_worker_non_rootish"]
        if ts.actor or ts.resource_restrictions or ts.worker_restrictions \
                or ts.host_restrictions:  # fmt: skip
            return decide(ts)
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
                            return s.workers[h.address]
        local: dict = {}
        roots_max = None
        for d in deps:  # its own inputs (policy.own_input; the size and readers tests
            if d.nbytes <= 0 or len(d.dependents) >= SHARED_FANOUT:  # inlined: hot)
                continue
            if not d.dependencies:  # computed from nothing: an indexer?
                if roots_max is None:
                    roots_max = self.books._roots_max
                if not own_input(d.nbytes, len(d.dependents), True, roots_max):
                    continue
            for h in d.who_has or ():
                if everyone or h in running:
                    local[h.address] = local.get(h.address, 0) + d.nbytes
        sole = sole_holder(local)
        if sole is not None:
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
        ws = decide(ts)
        if ws is None:
            return ws
        addr = place_consumer(local, ws.address)
        return ws if addr == ws.address else s.workers[addr]

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
            book = self.books.workers.get(addr)
            if book is None or not self._plain:
                book = self._measure(ws)
            else:
                book.held = ws.nbytes  # (_measure without a budget, without its calls: hot)
            if self.books.may_take_some(addr):
                if addr not in self._open:
                    self._open.add(addr)
                    self._epoch += 1
                # (books.may_progress inlined: hot)
                idle = book.processing == 0 and addr not in self.books.expecting
                if idle or (
                    book.roots_processing + book.roots_untouched < book.cap
                    and book.held + book.estimated < book.budget
                ):  # fmt: skip
                    # Free, least loaded first; unchanged (most looks): no call
                    key = ((book.roots_processing + book.roots_untouched + book.processing)
                           / book.threads, addr)
                    if self._free_key.get(addr) != key:
                        self._set_free(addr, key)
                    count = (book.processing < book.threads or book.threads == 1,
                             book.roots_processing + book.roots_untouched + book.owed
                             - book.cap)  # (policy.free_thread, inlined: hot)
                    if self._count.get(addr) != count:
                        self._set_count(addr, count)
                elif addr in self._free_key:
                    self._set_free(addr, None)
                if idle:
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
        (books.may_take_spread): nothing their walk would find there can change that."""
        books = self.books
        spread_ok = k not in books.workers or books.may_take_spread(k)
        parks = self._further_parks
        # k's refusals during this wake, by what refuses_further's answer reads of a root
        # (nothing in the books changes meanwhile): roots parked on one worker mostly ask
        # alike (twin rechunk-add 100x4: 3,705 of 6,050 asks repeated one in their wake)
        memo: dict = {}
        for ts in list(self._waiting_on.get(k, ())):
            if not spread_ok and self._spread(ts):
                continue
            if parks and ts.key in parks and self._still_waits(ts, k, parks[ts.key], memo):
                continue
            self._unpark(ts)
            if ts.state == "queued":
                self._ready.add(ts)

    def _still_waits(self, ts, k, kept, memo=None) -> bool:
        """Would root ts, parked on its further meeting's busy worker k (``kept``: its
        ``_further_parks`` entry), be parked there again if put back in line now? Yes when
        _place would find it by ``_waits_again`` (its walks kept, some worker free for
        roots, no broadcast input) with k the one worker of its hint open for roots, and
        books.refuses_further says k refuses it (k busy). It then stays parked, not woken
        to be placed and parked again (twin rechunk-add: once a task end, ~900 plugin
        bytecodes a task). Asked when k's books change, not in poke's scan: what changes
        elsewhere before the scan reaches it (another root started, its lacks placed) is
        seen at k's next change; a decision change (see bench/results/cpu26-findings.txt).
        ``memo``: books.refuses_further's, for the roots asked in one wake of k."""
        if kept[0] is not ts or not self._free or ts.state != "queued" or self.limits.caps:
            return False  # (limits: poke's scan may park it on a full limit instead)
        entry = self._kept_walk(ts)
        if entry is not kept[1]:
            return False
        hint, whole = entry[1][1]
        if not whole or not hint.get(k, 0) > 0:
            return False
        open_ = self._open
        if k not in open_:
            return False
        for w in hint:
            if w != k and w in open_:
                return False
        if self._broadcast.restricts(self.scheduler, ts):
            return False
        plan = kept[3]
        if not plan.pair:
            return False
        return self.books.refuses_further(ts.key, ts.group.name, k, kept[2], plan.further,
                                          True, memo)  # fmt: skip

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
        self._queue_new = False
        if s is None or not (s.queued or self._held) or not s.running:
            return
        if not self._whole:  # books half rebuilt (_resync failed): dask releases the queue
            self._dask_stimulus(s, stimulus_id)
            return
        try:
            self._poke(s, stimulus_id)
        except Exception as exc:
            self._context = None
            self._error("poke", exc)
            self._dask_stimulus(s, stimulus_id)

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
        if self._held:
            restricted.release(self, s, stimulus_id)
        copies = self._copies
        b = self._broadcast
        if copies._entry and copies.any_parked() and b.generation != self._copies_seen:
            self._copies_seen = b.generation
            copies.wake()  # a copy started, landed or was dropped: held readers may go
        books = self.books
        if books.changed:
            self._update()
        limits = self.limits
        limited = bool(limits.caps)
        held = limited or (bool(b.flight) and b.active)  # queued non-roots to look at
        if not held and (not self._open or (not copies._entry and self._still_blocked())):
            return
        # Tasks a full limit withholds are parked on it (they never block other work);
        # roots stop at the first that cannot be placed, but with limits the scan goes on
        # (limited non-roots would not wait for roots) for a bounded number of tasks.
        # Once roots are blocked only the other queued tasks are looked at: walking the
        # roots to find them cost 1,000 roots per task end (twin vorticity, 100 workers,
        # readers of the grids held for copies: 2x the scheduler's CPU).
        ready = self._ready
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
                        c, looked, examined = self._look_held(
                            s, ts, looked, examined)  # fmt: skip
                        if c is None:
                            continue
                    copies.discard(c, b.held, b.generation)
                    if c.state == "queued":
                        ready.add(c)
                    continue
                if ts is None:
                    break
                if ts.state != "queued":
                    ready.discard(ts)  # left the queue (stolen by a fallback, forgotten)
                    continue
                looked += 1
                names = self._limit_names(ts) if limited else ()
                if names:
                    full = limits.full(names)
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
                    roots_blocked = True  # later roots would wait for the same slots
                    if not self._free:
                        self._blocked = (ts, self._epoch, ready.added)
                    continue
                ws = s.workers.get(addr)
                if ws in s.running:
                    self._start(ts, ws, stimulus_id)
                    self._wake_lacked(self._lacked)
                if ts in ready:  # a partner's worker that is leaving
                    ready.discard(ts)
                    skipped.append(ts)
                self._update()
                if not self._open:
                    roots_blocked = True
            if roots_blocked and self._offered and books._owed and self._free_key \
                    and self._blocked is not None and self._blocked[0] is ready.best():  # fmt: skip
                examined = self._owed_first(s, examined, stimulus_id)
            if (self._idle or (self._free and self._parked_kept)) and self._parked \
                    and not ready.has_roots() \
                    and examined < WINDOW and looked < 4 * WINDOW:  # fmt: skip
                self._split(s, stimulus_id)
        finally:
            for ts in skipped:
                if ts.state == "queued" and ts not in self._parked and ts not in copies:
                    ready.add(ts)

    def _owed_first(self, s, examined: int, stimulus_id) -> int:
        """The scan stopped at a root nobody may take (``_blocked``: no worker free for
        roots when it was asked, and it is still the best queued): a root reserved
        (``books._owed``) on a worker now free for roots is asked out of line when its
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
        for r, (w, opener) in list(books._owed.items()):
            if examined >= WINDOW:
                break
            if w not in free or r not in books._owed:
                continue
            ts = tasks.get(r)
            if ts is None or ts.state != "queued" or ts not in ready:
                continue
            if opener in books._processing or opener not in books._live:
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
            return ts.state == "queued" and ts in ready
        if ready.best() is ts and ts.state == "queued":
            self._blocked = (ts, self._epoch, ready.added)  # the best again: from now on
            return True
        return False

    def _split(self, s, stimulus_id) -> None:
        """Every queued root left waits for a partner's busy worker while some workers have
        nothing processing: the best waiting roots start there, one per idle worker. Their
        data meets its partners' by a transfer, but waiting idles a thread with nothing
        else to run: the zarr anomaly at 2x1 loaded a whole partial mean's chunks on one
        worker while the other idled (twin: peak 448 MB, 4.5 s against queuing's 416 MB,
        3.9 s). Cost: O(parked) when it applies (the queue is down to waiting roots)."""
        running, workers, books = s.running, s.workers, self.books
        idle = sorted(a for a in self._idle if workers.get(a) in running
                      and books.workers.get(a) is not None
                      and books.workers[a].processing == 0)  # fmt: skip
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
        for ts in heapq.nsmallest(len(idle) + len(free), waiting, key=lambda t: t.priority):
            lacks: set = set()
            kept = ts in self._parked_kept
            partners, allowed = self._broadcast.restrict(
                s, ts, self._partners(ts, lacks, {}, None),
                idle + free if kept else idle, stimulus_id)  # fmt: skip
            for addr in filterfalse(taken.__contains__, allowed):
                book = books.workers.get(addr)
                if book is None or (book.processing and not kept):
                    continue
                if kept and self._heavier(ts, addr):
                    continue  # it waits for a worker holding less (_by_held)
                got = books.place(ts.key, math.nan, ts.group.name, {}, [addr], stimulus_id,
                                  {r.key for r in lacks})  # fmt: skip
                if got is not None:
                    self._unpark(ts)
                    self._start(ts, workers[got], stimulus_id)
                    taken.add(got)
                    self._update()
                break

    def _look_held(self, s, ts, looked, examined):
        """Look, best first, at the woken held readers better than ``ts`` (the best other
        queued task, or None) while the window lasts, each as ``Broadcast.place`` would:
        held anew if its worker still runs and gate would hold it without starting a copy.
        Nothing else happens meanwhile, so each shared input is checked once per run.
        Returns ``(the first reader that is not so, or None; looked; examined)``.

        After a reader found held by ``blocked``, the readers that would be held the same
        way are passed over in bulk (:meth:`_covered`, ``Held.skip``), counted as looked
        at: the same window, the same readers held, the same stamps, found without a look
        at each (anomaly, 1,000 workers: each copy of the mean woke every reader)."""
        b, copies = self._broadcast, self._copies
        held, workers, running = b.held, s.workers, s.running
        everyone = len(running) == len(workers)  # (nothing else changes in this run)
        blocked = b.blocker(s)
        bound = None if ts is None else ts.priority
        covered = None  # where a held reader may go; False: no bulk look in this run
        while True:
            for c in copies.woken():
                if bound is not None and not c.priority < bound:
                    return None, looked, examined
                if examined >= WINDOW or looked >= 4 * WINDOW:
                    return None, looked, examined
                if c.state != "queued":
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
                if checked and covered is not False:
                    if covered is None:
                        covered = self._covered(s, blocked)
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

    def _place(self, ts, stimulus_id=None):
        """``(worker or None, partners)`` for root ts (:meth:`_decide`); the walks of a
        root refused are kept (``_walks``): it will be placed again."""
        self._entry = None
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
        addr, partners = self._decide(ts, stimulus_id)
        if addr is None:
            entry = self._entry
            if entry is not None and entry[0] is ts:
                if entry[3] is None:
                    self._keep_walk(entry)
                if self._parks_further is ts and entry[3] is not None \
                        and self._walks.get(ts.key) is entry:  # fmt: skip
                    parks[ts.key] = (ts, entry, self._lacked, self._plan(ts))
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
                nbytes=self._size, meetings=plan.meetings, chains=self._chains), ts.key
            assert plan.wide is None and plan.pair, ts.key
            self._audited("further park")
        self._entry = entry
        lacks = self._lacked = kept[2]
        addr = books.place(ts.key, math.nan, ts.group.name, hint, (), stimulus_id, lacks,
                           None, hint.keys(), commits=plan.further, further=plan.pair)
        return (addr, {}) if addr is not None else (None, hint)

    def _still_withheld(self, ts, withheld, stimulus_id):
        """_decide's answer for root ts, withheld the last time for "free workers" with
        no partners and no hint (``_withheld``), when it is that again; else None (then
        _decide finds it). What _decide reads on its way there, asked again: some worker
        free, none idle, no books changed, ts not reserved, its walks kept and unmoved
        (its partners, lacks and hint as then), not split (``_splits``), no broadcast
        input (restrict leaves all as it is), no count fitting (``may_fit_count``). The
        plan's parts it reads (``wide`` None, ``further``) and ``_kept`` hold while the
        graph does (a new one drops ``_withheld``). Logged as _decide logs it, with the
        same state left behind (_entry, _lacked)."""
        if not self._free or self._idle:
            return None
        _, entry, lacks, further, first = withheld
        books = self.books
        if books.changed or ts.key in books._owed:  # (books.reserved, without its call)
            return None
        if self._kept_walk(ts) is not entry or entry[1][1] is None or entry[1][1][0]:
            return None
        if (first is not None and self._splits(ts)) \
                or self._broadcast.restricts(self.scheduler, ts) \
                or may_fit_count(self._counts, books.opens(lacks) if further else 0):  # fmt: skip
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
        # A root whose data meets nothing (a final task reading broadcast weights) has no
        # partners, lacks none and no further meeting: neither walk is made for it.
        if plan.meetings:
            # (frees_slot's tops recorded by the walk if made now: since busy29 frees_slot
            # holds on every worker and a second walk for them cost 2-7.5% of the plugin's
            # bytecodes, plugin_ops)
            tops: dict | None = {} if not plan.deep and policy_module.FREES_SLOT & 1 else None
            found, lacks, shared, complete, spread = self._walk(ts, plan, tops)
            if complete and not plan.deep and policy_module.BUSY_PASS:
                # (policy.passes_busy; one28-, busy28-, busy29-findings.txt)
                workers = books.workers
                widest = max(len(m.dependencies) for m, _ in plan.meetings)
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
        narrowed = allowed is not listed
        if narrowed:
            def free():
                return iter(allowed)
            listed = free()
        # (listed: not read yet, the first placement's candidates; a second reads afresh)
        if not narrowed and self._kept(ts) is not None and self._splits(ts):
            placed = self._by_held(ts, partners, lacks, plan, stimulus_id)
            if placed is not None:
                return placed
        if partners:
            # (partners through a final gather only, policy.gathers_only: none to wait for;
            # refused, it stays in line, not parked on their workers)
            own = {} if plan.gather else {w: n for w, n in partners.items()
                                          if n > shared.get(w, 0)}
            return books.place(ts.key, math.nan, ts.group.name, partners, listed,
                               stimulus_id, lacks, shared, complete, bool(spread),
                               plan.further, deep=plan.deep, gather=plan.gather), own  # fmt: skip
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
        hint, whole = self._further(ts, plan) if plan.meetings else ({}, False)
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
            hint = {w: n for w, n in hint.items() if w in ok}
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
                widest = max(len(m.dependencies) for m, _ in plan.meetings)
                done = {w for w in hint if w in workers and passes_for_group(
                    workers[w].roots_processing, workers[w].threads, widest)}
            addr = books.place(ts.key, math.nan, ts.group.name, hint, listed,
                               stimulus_id, lacks, None, done,
                               commits=plan.further, further=whole and plan.pair)  # fmt: skip
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
        if not partners and not self._idle and not books.changed \
                and not books.reserved(ts.key) \
                and not may_fit_count(self._counts, books.opens(lacks) if plan.further else 0):
            # No free worker is idle, none could admit it by the count: each would refuse
            # (books.place's answer, without asking each; refused workers are logged).
            if books.audit:
                assert books.place(ts.key, math.nan, ts.group.name, partners, listed,
                                   stimulus_id, lacks, commits=plan.further) is None, ts.key
                self._audited("free")
            books.log.append((ts.key, "withheld", "free workers", stimulus_id))
            entry = self._entry
            if plan.wide is None and not narrowed and entry is not None and entry[0] is ts \
                    and entry[1][1] is not None and not entry[1][1][0]:  # fmt: skip
                # (no hint, kept with the walks: _still_withheld asks the rest again)
                self._withheld = (ts, entry, lacks, plan.further, self._kept(ts))
            return None, partners
        return books.place(ts.key, math.nan, ts.group.name, partners, listed,
                           stimulus_id, lacks, commits=plan.further), partners  # fmt: skip

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
                    nbytes=self._size, meetings=plan.meetings, chains=self._chains), ts.key
                self._audited("further")
            return entry[1][1]
        out = further_by_plan(self._further_plan(ts, plan), _where, self._size)
        if self.books.audit:
            assert out == further_meeting(
                ts, _dependents, _dependencies, _where, constant=_constant,
                nbytes=self._size, meetings=plan.meetings, chains=self._chains), ts.key
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

    def _further_plan(self, ts, plan) -> tuple:
        """policy.further_plan of root ts, kept like its plan (``_fplans``)."""
        kept = self._fplans.get(ts.key)
        if kept is None or kept[0] is not ts:
            kept = self._fplans[ts.key] = (ts, further_plan(
                plan.meetings, _dependents, _dependencies, constant=_constant,
                chains=self._chains))  # fmt: skip
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
                    chains=self._chains), ts.key  # fmt: skip
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
                nbytes=self._size, meetings=plan.meetings, chains=self._chains), ts.key
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
        elif original.__name__ == "add_replica":
            def stamped(ts, ws):
                # (a task finishing on its worker: still "processing", no holder yet; it
                # is where it ran, as before: see transition)
                same = ts.state == "processing" and not ts.who_has
                if listed and not same:
                    listed.pop(id(ts.who_has), None)
                original(ts, ws)
                if not same and ts.key in plugin._moves:
                    plugin._moved += 1
                    plugin._moves[ts.key] = plugin._moved
        else:
            def stamped(ts, ws):
                if listed:
                    listed.pop(id(ts.who_has), None)
                original(ts, ws)
                if ts.key in plugin._moves:
                    plugin._moved += 1
                    plugin._moves[ts.key] = plugin._moved

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
        if not ts.dependents:
            return _NO_MEETINGS  # (the walk's answer, without one: a final task)
        plan = meeting_plan(ts, _dependents, _dependencies, constant=_constant,
                            chains=self._chains, group=_group,
                            halo_depth=halo_depth(self.scheduler.total_nthreads,
                                                  len(self.scheduler.workers)))
        self._plans[ts.key] = (ts, plan)
        return plan

    def _kept(self, ts):
        """policy.waits_for_own_reduction of root ts (its reduction's first task, or
        None), kept like its plan."""
        entry = self._kept_cache.get(ts.key)
        if entry is not None and entry[0] is ts:
            return entry[1]
        first = waits_for_own_reduction(ts, _dependents, _dependencies)
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
        roots reserved there (but the one being placed, reserved by ``owner``)."""
        return book.held + book.estimated + (book.owed - (addr == owner)) * est

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
        owner = books._owed.get(ts.key, (None,))[0]
        s = self.scheduler
        running, workers = s.running, s.workers
        if partners:
            p = max(partners, key=partners.__getitem__)
        else:
            p = next(iter(self._free_iter()), None)
        held_p = None
        least = least_key = None
        for addr, book in books.workers.items():
            if workers.get(addr) not in running:
                continue
            h = self._held_here(addr, book, owner, est)
            if addr == p:
                held_p = h
            key = (h, addr != p, book.processing / book.threads, addr)
            if least_key is None or key < least_key:
                least, least_key = addr, key
        if least is None or least == p or held_p is None \
                or not places_by_held(held_p, least_key[0], est):  # fmt: skip
            return None
        got = books.place(ts.key, math.nan, ts.group.name, {}, [least], stimulus_id, lacks,
                          complete={least}, commits=plan.further)  # fmt: skip
        if got is None and self._slower(ts.group.name, least, p):
            return None  # it would wait for a worker clearly slower: placed as any root
        return got, ({} if got is not None else {least: 1})

    def _heavier(self, ts, addr) -> bool:
        """Does worker addr hold more than half a load more than the least holding running
        worker (policy.places_by_held), for root ts placed by ``_by_held``?"""
        books = self.books
        est = books.estimate(math.nan, ts.group.name)
        if not est or addr not in books.workers:
            return False
        owner = books._owed.get(ts.key, (None,))[0]
        s = self.scheduler
        running, workers = s.running, s.workers
        least, at = min(((self._held_here(a, b, owner, est), a) for a, b in books.workers.items()
                         if workers.get(a) in running), default=(math.inf, None))  # fmt: skip
        if at is not None and at != addr and self._slower(ts.group.name, at, addr):
            return False  # it would wait for a worker clearly slower than addr
        return places_by_held(self._held_here(addr, books.workers[addr], owner, est), least, est)

    def _forget_plans(self) -> None:
        """The graph changed (a graph added, a task forgotten): no kept walk holds."""
        self._kept_cache.clear()
        self._plans.clear()
        self._chains.clear()
        self._lookups.clear()
        self._fplans.clear()
        self._withheld = None
        self._forget_walks()

    def _start(self, ts, ws, stimulus_id) -> None:
        self._context = (ts, ws)
        try:
            self._apply({ts.key: "processing"}, stimulus_id)
        finally:
            self._context = None


def _paced(paces: dict, worker, startstops) -> None:
    """A root finished on ``worker``: its compute seconds (the worker's ``startstops``)
    become the last of the two kept in ``paces`` (its group's, by worker) for
    policy.clearly_slower (Plugin._by_held, _heavier)."""
    d = 0.0
    for ss in startstops:
        if ss["action"] == "compute":
            d += ss["stop"] - ss["start"]
    last = paces.get(worker)
    paces[worker] = (d, last[0] if last is not None else math.nan)


class _NoWorkers(set):
    """The scheduler's ``idle_task_count`` while tidegate owns the queue: always empty."""

    __slots__ = ()

    def add(self, ws) -> None:
        pass


class _Lines:
    """Queued tasks poke may try: roots and the others (limited tasks, readers of a
    shared input) in two lines, so that poke can go on with the others once no root can
    start, without walking the roots."""

    __slots__ = ("_roots", "_others", "_is_root", "added")

    def __init__(self, is_root) -> None:
        self._roots, self._others, self._is_root = _Line(), _Line(), is_root
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
        (self._roots if self._is_root(ts) else self._others).add(ts)

    def discard(self, ts) -> None:
        self._roots.discard(ts)
        self._others.discard(ts)

    def discard_key(self, key) -> None:
        # (the lines' dicts directly: once per queued task)
        self._roots._live.pop(key, None)
        self._others._live.pop(key, None)

    def has_roots(self) -> bool:
        return bool(self._roots)

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
        heapq.heappush(self._heap, (ts.priority, seq, ts))
        if len(self._heap) > 2 * len(self._live) + 1024:  # mostly stale: rebuild
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


def _pieces(deps) -> float:
    """The bytes of deps together when two or more of them (constants aside) are all of
    one task group, pieces of one array (books.on_finished's ``pieces``); else NaN."""
    group, total, n = None, 0, 0
    for d in deps:
        spec = d.run_spec
        if spec is None or isinstance(spec, DataNode):  # (_constant inlined: hot)
            continue
        if group is None:
            group = d.group
        elif d.group is not group:
            return math.nan
        total += max(d.nbytes, 0)
        n += 1
    return total if n > 1 else math.nan


def _group(ts):
    return ts.group


def _keys(looked) -> tuple:
    """policy.walked_tasks' answer with the tasks placed as keys (dask stamps keys)."""
    placed, sized = looked
    return [t.key for t in placed], sized


_NO_MOVE = itertools.repeat(0)  # _moves.get's default for each task (map, in C)


def _constant(ts) -> bool:
    return ts.run_spec is None or isinstance(ts.run_spec, DataNode)


def _chained(ts) -> bool:
    """Does a single-input task take ts's result on (open -> read)? Inputs embedded in
    the graph (constants) are not a second input, as for ``single`` in _left_processing
    and as core.py counts them (``TaskGraph.constant``)."""
    for d in ts.dependents:
        n = 0
        for x in d.dependencies:  # stops at a second input: a final task may have many
            if not _constant(x):
                n += 1
                if n > 1:
                    break
        else:
            return True
    return False


def _structural_root(ts) -> bool:
    annotations = ts.annotations
    override = annotations.get(ROOT) if annotations else None
    deps = ts.dependencies
    marked = bool(getattr(ts.run_spec, "data_producer", False))
    if override is None and deps and not marked:
        # An input read by fewer than SHARED_FANOUT tasks is no handle (policy.is_handle):
        # data, unless a constant. Most tasks' first input is such: found here, without a
        # tuple per input for is_root (asked once per task; _constant inlined), and first:
        # every other way out below but override and is_root's answers False too.
        for d in deps:
            if len(d.dependents) < SHARED_FANOUT:
                spec = d.run_spec
                if spec is not None and not isinstance(spec, DataNode):
                    return False
    if ts.resource_restrictions or ts.worker_restrictions or ts.host_restrictions:
        return False
    if ts.actor or not ts._queueable:
        return False
    if override is not None:  # dask.annotate(tidegate_root=True/False)
        return bool(override)
    if not deps:
        return is_root((), marked)
    return is_root(map(_as_input, deps), marked)


def _as_input(d) -> tuple:
    """``(ndeps, ndependents, constant, nbytes)`` of input d for policy.is_root: ``ndeps``
    counts d's inputs besides constants (``h = open(path)``, path a DataNode, read by 8
    loads is a handle, as in the core), scanned only where is_root reads it (a wide
    fan-out). ``nbytes``: d's measured output (-1 before it ran); dask asks is_rootish of
    a task when it is ready, its inputs held, so a reader sees its handle's size."""
    ins = d.dependencies
    n = len(d.dependents)
    if ins and n >= SHARED_FANOUT:
        return sum(not _constant(x) for x in ins), n, _constant(d), d.nbytes
    return len(ins), n, _constant(d), d.nbytes


def _read_on_key(ts, books, worker, x) -> bool:
    """``books.on_finished``'s ``read_on`` for single-input ts (policy.read_on), by key,
    bound to ts with ``partial`` (made in C: no closure per finished task). ``worker``: ts
    ran there; an indexer not run yet may be sized by its prefix there
    (policy.sized_by_prefix, policy.unrun_input_size)."""
    for d in ts.dependencies:
        if d.key == x:
            book = books.workers.get(worker)
            return read_on(d.dependents, ts, partial(
                _one_data_input, roots_max=books._roots_max,
                sized=book is not None and sized_by_prefix(book.threads)), _pending)
    return False


def _read_soon(ts) -> bool:
    """Has ts a reader still to run whose other inputs are all done or processing (no
    root of them still to admit)? A running total's first carry (a tiny root added to the
    first block, loaded at once) is so; a groupby indexer whose month cut waits for a chunk
    dask.order loads late is not (_rejudge)."""
    for d in ts.dependents:
        if d.state in _DONE:
            continue
        for x in d.dependencies:
            if x is not ts and x.state != "memory" and x.state != "processing" \
                    and not _constant(x):  # fmt: skip
                break
        else:
            return True
    return False


def _pending(o) -> bool:
    return o.state not in _DONE


# meeting_plan of a task no task reads: it meets nothing (read only, never changed)
_NO_MEETINGS = MeetingPlan(False, (), ())
_DONE = frozenset({"memory", "erred", "released", "forgotten"})


def _on_their_way(ts, depth: int) -> bool:
    """Are ts's inputs all done or running, or waiting only on such tasks (to ``depth``
    levels): nothing of them still to be admitted or placed (policy.awaits_combine)?"""
    for x in ts.dependencies:
        state = x.state
        if state == "memory" or state == "processing":
            continue
        if state != "waiting" or depth <= 1 or not _on_their_way(x, depth - 1):
            return False
    return True


_UNPLACED = frozenset({"released", "waiting", "queued", "no-worker"})  # a root still to place


def _one_data_input(ts, roots_max, sized=False) -> bool:
    """Has ts one input that carries data (``policy.second_input``): constants aside, and
    an indexer computed from nothing or a mask of another input aside. ``sized``: an
    indexer not run yet is sized by its prefix (policy.unrun_input_size)."""
    deps = ts.dependencies
    n = 0
    for x in deps:
        spec = x.run_spec
        if spec is not None and not isinstance(spec, DataNode):  # (_constant inlined: hot)
            n += 1
            if n > 1:
                break
    else:
        return n == 1
    n = 0
    for x in deps:
        if _constant(x):
            continue
        xd = x.dependencies
        # (second_input's answer without the call where it is plain: computed from data
        # that is not another input of ts, it is a second input; hot, once per join)
        if xd:
            if deps.isdisjoint(xd) or not _derived_from(x, deps):
                n += 1
        elif second_input(True, x.nbytes if x.nbytes >= 0 or not sized
                          else unrun_input_size(x.nbytes, _returned(x.prefix), sized),
                          False, roots_max):  # fmt: skip
            n += 1
        if n > 1:
            return False
    return n == 1


def _derived_from(x, deps) -> bool:
    """Is x computed from one other input of the same task alone (constants aside)?"""
    one = None
    for d in x.dependencies:
        if not _constant(d):
            if one is not None:
                return False
            one = d
    return one is not None and one in deps


def _one_input(ts) -> bool:
    n = 0
    for x in ts.dependencies:
        if not _constant(x):
            n += 1
            if n > 1:
                return False
    return n == 1


def _where(ts) -> list:
    if ts.who_has:
        return list(map(_address, ts.who_has))
    if ts.processing_on is not None:
        return [ts.processing_on.address]
    return []


def _frees(books):
    """policy.frees_slot's ``carries`` and ``reduces`` over dask TaskStates: by the books,
    and by the sizes a task's group returned so far (``_returned``, as ``_splits``)."""
    keep = books.policy.chain_keep

    def carries(ts):
        return books.carries(ts.key)

    def reduces(u, c):
        returned = _returned(u.group)
        if math.isnan(returned):
            return False
        size = c.nbytes if c.nbytes > 0 else books.estimate(math.nan, c.group.name)
        return policy_reduces(returned, size, keep)

    return carries, reduces


def _returned(group) -> float:
    """Bytes a task of ``group`` (a TaskGroup or TaskPrefix) returned on average so far (its
    done tasks); NaN unknown."""
    done = group.states.get("memory", 0) + group.states.get("released", 0) \
        + group.states.get("forgotten", 0)  # fmt: skip
    return group.nbytes_total / done if done and group.nbytes_total > 0 else math.nan


def _partners(ts, lacks=None, shared=None, complete=None, nbytes=None, spread=None,
              plan=None, tops=None) -> dict:
    """{worker address: inputs held or processing there of the tasks ts's data meets}."""
    return meeting_partners(ts, _dependents, _dependencies, _where, lacks=lacks, shared=shared,
                            constant=_constant, complete=complete, nbytes=nbytes,
                            spread=spread, plan=plan, tops=tops)  # fmt: skip


# The graph walks (policy.meeting_partners) read these for every task they pass: attrgetters
# run in C, without a Python frame per read.
_dependents = operator.attrgetter("dependents")
_address = operator.attrgetter("address")
_key = operator.attrgetter("key")
_nbytes = operator.attrgetter("nbytes")
_second = operator.itemgetter(1)
_dependencies = operator.attrgetter("dependencies")
