"""tidegate's policy inside a dask ``SchedulerState``: the plugin, with no loop and no server.

The decisions are books.py's and the policy package's; this file translates dask's events into the
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
``poke(stimulus_id)`` on its virtual tick. No decision reads a clock (but the broadcast's
fan-out with ``policy.BROADCAST_LEARN`` on, off by default: copies timed on the
scheduler's loop clock, the twin's virtual one).

``Plugin`` is one class written in four files: this one (dask's events into the books:
``transition``, worker and graph hooks, the books' measures), install.py (install,
uninstall, guards, resync), admission.py (poke: which queued task starts; parking) and
placement.py (where a task runs). tasks.py holds the questions about one ``TaskState``
they share, lines.py the queue.
"""

from __future__ import annotations

import logging
import math
from functools import partial
from itertools import islice
from operator import attrgetter, itemgetter

import dask.config
from dask._task_spec import DataNode
from dask.utils import format_bytes
from distributed.diagnostics.plugin import SchedulerPlugin

from .. import config
from ..annotations import LIMIT, check_limits, merge
from ..books import Limits
from . import restricted
from .. import policy as policy_module  # (TINY_PREFIX_NO_ROOT read per root: tests set it)
from ..policy import (
    HANDLE_MAX_BYTES, NOT_DATA_RATIO, SHARED_FANOUT, Policy, awaits_combine,
    clearly_slower, drops_reservations, lags, lags_clearly, lags_persist, light_ahead,
    steals_beside_slower, steals_while_lagging, tiny_prefix,
)
from .admission import Admission
from .install import Install
from .placement import Placement
from .tasks import (
    _UNPLACED, _chained, _constant, _key, _most_held, _on_their_way, _on_their_way_read,
    _one_data_input, _pieces, _read_on_key, _read_soon, _structural_root, _target,
)

logger = logging.getLogger("tidegate.distributed")
# The combine view (_combines_of) kept per worker until a task it read changes (session 40;
# no switch since session 42: tests compare it with the view found anew). Why: twin
# anomaly 100 x 4 at 1,000 steps asks it 1.1 times a task, 99% of the asks with nothing it
# reads changed since that worker's last ask (bench/results/cpu39c-findings.txt section 3;
# cpu40a-findings.txt). What it reads: the worker's noted combines (_combines[addr]: a note
# drops the kept view, _note_combine), each kept combine's state, its inputs' holders,
# processing_on and states, and the inputs' states _on_their_way walks into. Each of those
# tasks is watched (_viewed) and its kept views dropped (_view_moved) where dask changes
# them: a transition (Plugin.transition; not processing -> memory: on the worker it ran on,
# its one holder then, which the view counts alike; not released -> waiting: a view that
# read a task released is not kept), a replica added or dropped (Placement._replicas), a
# steal confirmed (stealing's move_task_confirm sets processing_on without a transition:
# its stream handler wrapped at install, _steal_confirmed). A graph added drops all.

_STATE = attrgetter("_state")
_dask_logger = logging.getLogger("distributed.scheduler")  # (a folded hook fails as dask logs)

NAME = "tidegate"


def _reads_and_runs(tasks):
    """(input bytes together, or -1 if one is unknown; the prefix's average run time, dask's
    duration_average, -1 if unknown) of each task: policy.light_ahead's ``tasks``."""
    for ts in tasks:
        total = 0
        for d in ts.dependencies:
            if d.nbytes < 0:  # (unknown: not little)
                total = -1
                break
            total += d.nbytes
        yield total, ts.prefix.duration_average


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


class Plugin(Install, Admission, Placement, SchedulerPlugin):
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

    # Stealing's plugin hooks, called from ours while server.fold_stealing took it out of
    # scheduler.plugins: (its name, the extension, the names before it); its transition.
    _folded = None
    _steal_fold = None
    _steal_ext = None  # (the extension whose transition _steal_fold is: its books' test)
    _steal_closure = None

    # -- SchedulerPlugin ------------------------------------------------------------------
    async def start(self, scheduler) -> None:
        self.install(scheduler)

    async def close(self) -> None:
        self.uninstall()

    def restart(self, scheduler) -> None:
        if self._folded is not None:  # (stealing's first, as dask called them)
            from . import server

            server.folded_hook(self, "restart", scheduler)
        if self.scheduler is scheduler:
            try:
                self._resync()
            except Exception as exc:  # (dask would log it at every restart)
                self._error("restart", exc)

    def add_worker(self, scheduler, worker) -> None:
        if self._folded is not None:
            from . import server

            server.folded_hook(self, "add_worker", scheduler=scheduler, worker=worker)
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
        if self._folded is not None:
            from . import server

            server.folded_hook(self, "remove_worker", scheduler=scheduler, worker=worker,
                               **kwargs)  # fmt: skip
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
            self._views.pop(worker, None)
            verdicts = self._slow_groups, self._paced_groups, self._idle_groups
            for name, paces in self._pace.items():  # (its paces judge no worker now)
                if paces.pop(worker, None) is not None:
                    if not _uneven(paces):
                        self._uneven.discard(name)
                    if any(name in found for found in verdicts) and not _apart(paces):
                        # (found on its paces: no pair left finds them; _apart is a pass over
                        # pairs of workers, asked only of a group with a verdict: rev51m)
                        for found in verdicts:
                            found.discard(name)
            if self._wave is not None:
                self._wave[2].discard(worker)  # (took its share: no longer one to wait for)
            if self._readers:  # (nor its readers' paces: policy.lags' reference goes too)
                self._lagging.pop(worker, None)
                for reader, (_, paces) in self._readers.items():
                    paces.pop(worker, None)
                    ref = self._lag_ref.get(reader)
                    if ref is not None and ref[0] == worker:
                        del self._lag_ref[reader]
                for windows in self._lag_roots.values():
                    windows.pop(worker, None)
            self._copies.wake()  # a held reader's worker may be the one leaving
            self._broadcast.drop_worker(worker)  # (its WorkerState is kept nowhere else)
            self.books.remove_worker(worker, locate, kwargs.get("stimulus_id"))
            if worker in self._waiting_on:  # (after its book went: _wake's spread roots
                self._wake(worker)  # asked may_take_spread of it, and stayed parked there)
        except Exception as exc:
            self._error("remove_worker", exc)
            try:
                self._resync()
            except Exception as exc2:
                self._error("resync", exc2)
        self._workers_moved()  # (after the books lost it, whatever happened above)

    def update_graph(self, scheduler, **kwargs) -> None:
        if self.scheduler is None:
            return
        self._views.clear()  # (the edges the kept combine views walked may change)
        self._viewed.clear()
        try:
            self._new_graph(scheduler, kwargs)
        except Exception as exc:  # (dask would log it at every graph)
            self._error("update_graph", exc)
            self._forget_plans()
        # Its roots were queued (placement happens in poke): look at the queue soon.
        if self._server:
            from . import server

            if self._folded is None and self._steal_closure is not None:
                server.fold_stealing(self, scheduler)  # (added to the dict after start())
            server.soon(self, scheduler, self._tick)

    def _new_graph(self, scheduler, kwargs) -> None:
        self._forget_plans()  # the new tasks may meet queued roots' data (dask added them)
        # A new computation: statistics of groups that are gone do not carry over.
        self.books.forget_groups(lambda g: g in scheduler.task_groups)
        groups = scheduler.task_groups
        # (nor the regions or the stagger's verdicts of gone groups: each entry keeps its
        # group, and a group of the same name anew is judged anew)
        for kept in (self._regions, self._shorts):
            if kept:
                for n in [n for n, e in kept.items() if groups.get(n) is not e[0]]:
                    del kept[n]
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
        # A kept combine view or walk (_keep_walk) that looked at it is stamped where it
        # moves (_moving): not when it finishes (processing -> memory: on the worker it ran
        # on, its one holder), the walks read only where the tasks they look at are
        # (_where) and sizes measured before they were kept (rechunk-add 100x4: a third
        # of the re-walks). Asked first in processing's rarer moves (_moving) and in every
        # other start's branch (inline there, hot): the finish (once a task) asks nothing.
        try:
            # By start, then by finish where that start can reach it (dask's table: from
            # processing to released, memory or erred; from memory to released, erred or
            # forgotten): one comparison, not three, for a task's finish and release.
            if start == "processing":
                if finish != "memory":  # (rare: stolen, lost, erred, refused)
                    self._moving(key)
                steal = self._steal_fold  # (stealing's first, as dask called them)
                if steal is not None:
                    # (server._steal_transition's first test, without its call: a task
                    # leaving processing while stealing's books are empty changes nothing
                    # there; once per task, server.fold_stealing's _steal_ext)
                    ext = self._steal_ext
                    if finish == "processing" or ext.key_stealable or ext.in_flight \
                            or ext.unknown_durations:  # fmt: skip
                        try:
                            steal(key, start, finish)  # (it reads no other argument)
                        except Exception:
                            _dask_logger.info("Plugin failed with exception", exc_info=True)
                self._left_processing(key, finish, stimulus_id, worker, startstops)
                if finish == "processing":  # a finish dask refused: it stays there
                    self._began(key, stimulus_id)
            else:
                if self._viewed and key in self._viewed:  # (_moving inline: hot)
                    self._view_moved(key)
                if self._moves and key in self._moves:
                    self._moves[key] = self._moved = self._moved + 1  # (one read of _moved)
                if start == "memory":
                    books = self.books
                    if key in books.carrying:  # (books.on_released, without its call: hot)
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
                        steal = self._steal_fold
                        if steal is not None:
                            try:
                                steal(key, start, finish)
                            except Exception:
                                _dask_logger.info("Plugin failed with exception",
                                                  exc_info=True)  # fmt: skip
                        self._began(key, stimulus_id)
                    elif finish == "queued":
                        ts = self.scheduler.tasks.get(key)
                        if ts is not None:
                            if self._held_now is None:
                                self._ready.add(ts)
                            else:
                                self._queued(ts)
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

    def _moving(self, key) -> None:
        """Task ``key`` moves (see transition): a kept view or walk that read it is stale."""
        if self._viewed and key in self._viewed:
            self._view_moved(key)
        if self._moves and key in self._moves:
            self._moves[key] = self._moved = self._moved + 1  # (one read of _moved)

    def _queued(self, ts) -> None:
        """Queued ``ts`` goes in line, or, a reader Broadcast.place just held at dask's
        decide_worker (``_held_now``) and still held at this generation, straight among
        the held readers (``Held``), as poke's scan would park it when it reached it
        (``admission.PARK_HELD_QUEUED``; not with limits: the scan parks on a full limit
        first). Why: such a reader went in line here, then poke's scan took it (best,
        first, Broadcast.place answering "held" by its stamp, discard) only to park it
        (twin anomaly 100 x 4: 491 readers of the mean, ~120 bytecodes a task). A
        decision change: the scan no longer counts it in its window (examined, looked),
        and its worker counts as expecting it (not idle: Held tells books.changed) from
        the hold, not from the scan's park, so a root poke would have started there
        first may wait (twin small table: one run in 990 moved, in two cells,
        bench/results/cpu37b-findings.txt)."""
        held_now, self._held_now = self._held_now, None
        if held_now is ts and not self.limits.caps:
            b = self._broadcast
            h = b.held.get(ts.key)
            if h is not None and h[1] == b.generation \
                    and self._is_root_cache.get(ts.key) is False:  # fmt: skip
                self._copies.park(ts, h[0], b.sig(ts))
                return
        self._ready.add(ts)

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
        if self.books.keeps_groups or self._pace or self._readers:
            ts = self.scheduler.tasks.get(key)  # (dask puts it back for plugins)
            if ts is not None:
                self._group_going(ts.group)

    def _group_going(self, tg) -> None:
        """Statistics of group ``tg`` go when its last task is forgotten (dask drops the
        group after this transition). Not at the next graph only: that graph may bring a
        group of the same name (every dask.delayed call of one function is group "load"),
        made before update_graph runs, and was judged by the old group's sizes."""
        name, books = tg.name, self.books
        if self._readers and name in self._readers:  # (policy.lags: its measures go)
            self._reader_going(tg)
        if not books.keeps_group(name) and name not in self._pace:
            return
        states = tg.states
        if states.get("forgotten", 0) != sum(states.values()):
            return  # others of the group are still there
        books.forget_groups(name.__ne__)
        if self._pace.pop(name, None) is not None:
            self._uneven.discard(name)  # (IDLE_WAKE: its own paces)
        self._lag_roots.pop(name, None)
        self._slow_groups.discard(name)
        self._paced_groups.discard(name)
        self._idle_groups.discard(name)
        if self._tiny_prefixes or self._tiny_most or self._tiny_not:  # (with its groups)
            self._tiny_prefixes.discard(tg.prefix.name)
            self._tiny_most.pop(tg.prefix.name, None)
            self._tiny_not.discard(tg.prefix.name)

    def _reader_going(self, tg) -> None:
        """Reader group ``tg``'s paces and the lags found from them go with its last task."""
        states = tg.states
        if states.get("forgotten", 0) != sum(states.values()):
            return
        del self._readers[tg.name]
        self._lag_ref.pop(tg.name, None)
        if not self._readers:
            self._lagging.clear()

    def _left_processing(self, key, finish, stimulus_id, worker=None, startstops=None) -> None:
        books = self.books
        # (limits.caps, not limits: Limits.__bool__ is a Python call on every transition)
        if self.limits.caps:
            self.limits.on_done(key)  # cluster-wide: nothing is held in Limits itself
            for name in self._limit_cache.get(key, ()):
                if ("limit", name) in self._waiting_on:
                    self._wake(("limit", name))
        if self._pace_moved:
            self._pace_moved.discard(key)
        if finish == "memory":
            ts = self.scheduler.tasks.get(key)
            if ts is None:
                books.on_stopped(key, stimulus_id)
                return
            deps = ts.dependencies
            carrying = books.carrying
            # Only the inputs that carry a root's data matter to on_finished (none carries
            # once it is left out here: nothing before its loop makes a carrier of one);
            # without such an input, neither does ``single`` (read for them alone).
            inputs = list(filter(carrying.__contains__, map(_key, deps))) if carrying else ()
            # data embedded in the graph (a DataNode, a handle) is not a second input
            single = bool(inputs) and (
                len(deps) == 1 or (len(deps) > 1 and _one_data_input(ts, books.roots_max)))
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
                # result yet is judged again when one finishes (policy.judged_again, grp29;
                # in the books, which ask _leads_on).
                feeds = books.root_holds_data(ts, ts.group.name, nbytes, feeds, _chained, key)
                if nbytes < HANDLE_MAX_BYTES and (
                        len(ts.dependents) >= SHARED_FANOUT or policy_module.CONSTANT_HANDLES & 2
                        and not deps and _constant(ts)) \
                        and drops_reservations(0 if all(map(_constant, deps)) else 1,
                                               len(ts.dependents), nbytes,
                                               _constant(ts)):  # fmt: skip
                    # A handle walked as data before it ran, now known a handle: its
                    # readers are the roots, its meetings' reservations go (before dask
                    # places its readers, in this stimulus's transitions)
                    books.unreserve_for(key)
                if (not deps and nbytes < HANDLE_MAX_BYTES or self._tiny_most) \
                        and policy_module.TINY_PREFIX_NO_ROOT:  # fmt: skip
                    self._tiny_seen(ts, deps, nbytes, books.largest_root)
                if self._wave is not None and key in self._wave[3]:
                    self._wave = None  # (a root of the wave ended: Admission._in_wave)
                if self._pace and startstops:  # (a group _by_held looked at: its paces)
                    paces = self._pace.get(ts.group.name)
                    if paces is not None and worker is not None:
                        d = _compute_seconds(startstops)
                        _paced(paces, worker, d)
                        if policy_module.IDLE_WAKE:  # (judged again: a finish may even them)
                            if _uneven(paces):
                                self._uneven.add(ts.group.name)
                            elif self._uneven:
                                self._uneven.discard(ts.group.name)
                        # (and the lag's windows, read only past the pairs: lags_persist)
                        if self._lag_roots and policy_module.LAG_SAMPLES > 2:
                            windows = self._lag_roots.get(ts.group.name)
                            if windows is not None:
                                _windowed(windows, worker, d)
            elif feeds and len(deps) > 1:
                pieces = _pieces(deps)
                if len(ts.dependents) == 1:
                    self._note_combine(ts, worker)
            elif self._readers and startstops and worker is not None:  # (policy.lags: a
                read = self._readers.get(ts.group.name)  # reader reads one task, no root)
                if read is not None:
                    self._lag_seen(ts.group.name, read, worker, startstops)
            # (read_on is asked only of an input that carries data: no closure otherwise)
            read_on = partial(_read_on_key, ts, books, worker) if single else None
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
        # (TaskState.prefix is the property ``self.group.prefix``: read here without its
        # two Python frames; rechunk-add 100 x 4: half of its tasks come here)
        if d.group.prefix is not group.prefix or len(deps) < 2:  # (an add of two merges)
            return
        for x in deps:
            if x.group is not group:
                return
        if not isinstance(worker, str):
            worker = next((ws.address for ws in ts.who_has or ()), None)
            if worker is None:
                return
        self._combines.setdefault(worker, {})[d.key] = d
        self._views.pop(worker, None)  # (a kept view of worker's combines)

    def _combines_of(self, addr) -> list:
        """books.combines: for each combine noted at addr (_note_combine) still to run,
        (its inputs done or computed at addr, at the worker with most of them, all of its
        inputs on their way: _on_their_way). Those placed (processing: dask chose their
        worker; gating there too, twin anomaly 100x4 1,200 steps peaked 1.03x queuing's
        against 0.90x) or done are dropped. Asked only for a root opening a meeting there
        (books.admits).

        The last two are found only as far as policy.awaits_combine can tell them apart
        (it is False for any larger ``held_most`` and without ``all_on_their_way``): where
        awaits_combine(here, here, True) is False, (here, here, False); where
        awaits_combine(here, most, True) is False, (here, most, False). books.awaits, the
        one reader, answers the same. Why: twin anomaly 100x4, 1,000 steps (the timed
        scale; at 500 steps no combine is noted): 4.4 asks a task, 3 in 4 with one input
        here, each counting every input's holders and walking _on_their_way 4 levels
        (~1,200 bytecodes, ~9 us a task, 5% of the scheduler's time). The most held is
        counted per worker only where the holders elsewhere could outnumber here's
        (session 37: 3,643 of 3,685 asks with two or more here, all of them with n - here
        <= here; 142 bytecodes a task). Kept per worker until a task it read changes
        (_combines_kept; why, and what is watched: the comment at the module's top)."""
        combs = self._combines.get(addr)
        if not combs:
            return []
        out = self._views.get(addr)
        if out is None:
            return self._combines_kept(addr, combs)
        if self.books.audit:  # (tests: the kept view is the view found anew)
            n = len(combs)
            assert self._combines_found(addr, combs) == out and len(combs) == n, addr
            self._audited("view kept")
        return out

    def _combines_found(self, addr, combs, read=None) -> list:
        """_combines_of's answer, found (and the combines gone pruned); ``read``: a list
        the tasks whose state, holders or processing_on the answer read are appended to
        (_combines_kept)."""
        out = []
        gone = None
        for key, d in combs.items():
            if d._state == "waiting":  # (._state: TaskState.state's slot, no property call)
                here = n = 0  # (done there, or computed there; n: anywhere, counted so)
                for x in d.dependencies:
                    who = x.who_has
                    if who:
                        n += len(who)
                        for ws in who:
                            if ws.address == addr:
                                here += 1
                    ws = x.processing_on
                    if ws is not None:
                        n += 1
                        if ws.address == addr:
                            here += 1
                if here:
                    if read is not None:
                        read.append(d)
                        read.extend(d.dependencies)
                    most, way = here, False
                    if awaits_combine(here, here, True):
                        # (no other worker holds more than the rest, n - here: when that
                        # is at most here, the most is here's, found without _most_held)
                        if n - here > here:
                            most = _most_held(d)
                            way = awaits_combine(here, most, True) and (
                                _on_their_way(d, 4) if read is None
                                else _on_their_way_read(d, 4, read))
                        else:
                            way = _on_their_way(d, 4) if read is None \
                                else _on_their_way_read(d, 4, read)  # fmt: skip
                    out.append((here, most, way))
                    continue
            if gone is None:
                gone = []
            gone.append(key)
        if gone is not None:
            for key in gone:
                del combs[key]
            if not combs:
                del self._combines[addr]
        return out

    def _combines_kept(self, addr, combs) -> list:
        """_combines_found's answer, kept for addr with every task it read watched, unless
        one of them is released (its move to waiting is not stamped: Plugin.transition's
        first return) or the steals' confirmations are not seen (a stealing handler not
        wrapped: _steal_confirmed)."""
        read: list = []
        out = self._combines_found(addr, combs, read)
        if out and "released" not in map(_STATE, read) and self._steals_seen():
            self._views[addr] = out
            viewed = self._viewed
            for ts in read:
                kept = viewed.get(ts.key)
                if kept is None:
                    viewed[ts.key] = {addr}
                else:
                    kept.add(addr)
        return out

    def _view_moved(self, key) -> None:
        """Task ``key``, read by kept combine views, changed: those views go (the others
        watching it too, whether or not they still read it: kept fewer, never stale)."""
        views = self._views
        for addr in self._viewed.pop(key, ()):
            views.pop(addr, None)

    def _slower(self, group, addr, other) -> bool:
        """Is worker addr clearly slower than worker other at group's roots
        (policy.clearly_slower), or lagging throughout by more than
        policy.LAG_ROOTS times while other does not lag (policy.lags_clearly)? Only
        reads: a caller acting on a yes notes it (``_found_slower``)."""
        paces = self._pace.get(group)
        if paces is None:
            return False
        if clearly_slower(paces.get(addr), paces.get(other)):
            return True
        lagging = self._lagging
        return bool(lagging) and lags_clearly(lagging.get(addr, 0.0), lagging.get(other, 0.0))

    def _found_slower(self, group) -> None:
        """A decision was taken on ``_slower``'s yes for root group ``group``: stealing may
        move non-roots from now on, until the group is forgotten
        (policy.steals_beside_slower, server._inputs_all_here), unless a worker is found
        lagging (policy.steals_while_lagging)."""
        if steals_beside_slower(True) and steals_while_lagging(bool(self._lagging)):
            self._slow_groups.add(group)

    def _lag_seen(self, reader, read, worker, startstops) -> None:
        """A task of group ``reader`` (``read``: (the root group it reads, its paces))
        ended on ``worker``: its pace is kept, and the worker is found lagging or not
        (policy.lags) against the fastest reader seen (the one whose longer of its last
        two is shortest; the first worker with two samples until then), and the lag must
        persist over each one's last policy.LAG_SAMPLES (policy.lags_persist: the readers'
        windows kept here, the roots' in ``_lag_roots``). Once per such task."""
        root, paces = read
        _windowed(paces, worker, _compute_seconds(startstops))
        window = paces[worker]
        if len(window) < 2:
            return  # (one sample)
        mine = window[:2]
        longer = max(mine)
        ref = self._lag_ref.get(reader)
        if ref is None or ref[0] == worker or longer < ref[1]:
            self._lag_ref[reader] = (worker, longer)
            self._lagging.pop(worker, None)
            return
        fast = ref[0]
        roots = self._pace.get(root, {})
        others = paces[fast]
        lag = lags(roots.get(worker), roots.get(fast), mine, others[:2])
        if lag:
            windows = self._lag_roots.get(root, {})
            if not lags_persist(windows.get(worker, ()), windows.get(fast, ()), window,
                                others):  # fmt: skip
                lag = 0.0  # (two samples' noise: it does not hold over more)
        if lag:
            self._lagging[worker] = lag
            if self._slow_groups and not steals_while_lagging(True):
                self._slow_groups.clear()  # (consumers go by pace now: not dask's stealing)
        else:
            self._lagging.pop(worker, None)

    def _leads_on(self, key) -> bool:
        """books.leads_on: does root key's result, tiny beside a larger root result now,
        lead to data anyway (the books' _rejudge leaves its slot)? When a reader of it is
        about to run (_read_soon: a running total's first carry) or is a root
        (_feeds_roots)."""
        ts = self.scheduler.tasks.get(key)
        return ts is None or _read_soon(ts) or self._feeds_roots(ts)

    def _light_on(self, addr, estimate: float, most: int, short: bool = False) -> int:
        """books.light: how many of the tasks processing on worker addr a spread root of
        ``estimate`` bytes may be sent ahead of (policy.light_ahead: tasks that read next to
        no data and end soon, and one that ends soon whatever it reads), counted up to
        ``most``. Asked only where they could let a spread root go (books._admits), so over
        a few tasks. ``short``: light_ahead's (books' policy.SHORT_ONE ask)."""
        ws = self.scheduler.workers.get(addr)
        if ws is None:
            return 0
        return light_ahead(_reads_and_runs(ws.processing), estimate, most, ws.nthreads, short)

    def _feeds_roots(self, ts) -> bool:
        """Is a reader of ts a root (ts a handle its loads read: twin weighted's
        original-open-u, read by its 100 chunk loads)? Then books._rejudge leaves its slot:
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
        if not root and len(deps) > 1 and books.carrying:  # (one input: never a consumer)
            # (_constant inlined: once per task)
            inputs = [d for d in deps
                      if d.run_spec is not None and not isinstance(d.run_spec, DataNode)]
            # (books.on_consuming does nothing unless an input carries a root's data: asked
            # first, in C; the holders' test hashes a WorkerState in Python per input)
            if len(inputs) > 1 and not books.carrying.keys().isdisjoint(map(_key, inputs)):
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
            self._workers_moved()
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

    def _judged_root(self, ts) -> bool:
        """Is ts a root, asked once per task (``_root`` and ``_is_rootish`` keep the answer):
        a root by structure, not of a tiny prefix (policy.tiny_prefix), not a store's
        target (policy.is_target, asked of shared handles only)?"""
        return _structural_root(ts) and not (
            self._tiny_prefixes and self._tiny_task(ts)) and not _target(ts, self.scheduler)

    def _root(self, ts) -> bool:
        r = self._is_root_cache.get(ts.key)
        if r is None:
            r = self._is_root_cache[ts.key] = self._judged_root(ts)
        return r

    def _tiny_task(self, ts) -> bool:
        """Is ts, computed from nothing, of a prefix whose results are all tiny
        (policy.tiny_prefix, noted by _tiny_seen), taken on by no single-input task and
        read by no root?"""
        return bool(self._tiny_prefixes) and not ts.dependencies \
            and ts.prefix.name in self._tiny_prefixes and not _chained(ts) \
            and not self._reads_as_root(ts)  # fmt: skip

    def _reads_as_root(self, ts) -> bool:
        """Is one of ts's first readers a root (ts a handle its loads read)? A few asked,
        by _root (kept): _feeds_roots asks all and keeps none, which on a handle read by
        100 loads not yet classified cost the plugin 6% of its bytecodes (twin weighted
        100 x 4, plugin_ops)."""
        return any(self._root(d) for d in islice(ts.dependents, 4))

    def _tiny_seen(self, ts, deps, nbytes, largest) -> None:
        """Root ts finished with ``nbytes``: note its prefix's largest result if it was
        computed from nothing and no single-input task takes it on; every noted prefix
        whose results are tiny beside ``largest`` (policy.tiny_prefix) and whose task read
        by no root (a handle its loads read stays a root: twin weighted's original-open-u)
        has no roots from now on: its queued tasks leave the roots' line and are placed as
        dask places any other task at the next poke (_tiny_pending)."""
        seen = self._tiny_most  # prefix -> (largest result, a task of it)
        if not deps:
            name = ts.prefix.name
            if name in self._tiny_prefixes or name in self._tiny_not:
                pass
            elif nbytes >= HANDLE_MAX_BYTES:  # (only a handle-sized result can turn tiny)
                seen.pop(name, None)
                self._tiny_not.add(name)
            elif nbytes >= seen.get(name, (0,))[0]:
                # (read by a root asked first: 4 readers; _chained walks every reader, and
                # asked again of a handle read by 100 loads it cost weighted 100 x 4 +6%
                # of the plugin's bytecodes, plugin_ops)
                if self._reads_as_root(ts) or _chained(ts):
                    seen.pop(name, None)
                    self._tiny_not.add(name)
                else:
                    seen[name] = (nbytes, ts)
        if not seen:
            return
        workers = self.books.workers

        def threads():  # (asked once per prefix found tiny: O(workers) then only)
            return max((b.threads for b in workers.values()), default=1)

        for name in [n for n, (most, _) in seen.items() if NOT_DATA_RATIO * most < largest]:
            most, one = seen.pop(name)
            if not tiny_prefix(most, largest, threads):
                self._tiny_not.add(name)  # (not asked again)
                continue
            self._tiny_prefixes.add(name)
            for t in self._ready.roots():
                if t.prefix.name == name and t.state == "queued" and self._tiny_task(t):
                    self._is_root_cache[t.key] = False
                    self._ready.discard(t)
                    self._tiny_pending.append(t)

    # -- the replaced scheduler methods ---------------------------------------------------
    def _is_rootish(self, ts) -> bool:
        """dask's ``is_rootish``, installed as it is: Install._guard's test and fallback
        written in (dask calls it once a task: no guard's frame around it, cpu47)."""
        if self._fallback or self.scheduler is None:
            return self._orig["is_rootish"](ts)
        try:
            # Limited tasks go through the queue too: sent to a worker only with room; so
            # do readers of a widely shared input: sent only where it is or is on its way.
            cache = self._is_root_cache  # (self._root inlined: once per task, dask's ask)
            root = cache.get(ts.key)
            if root is None:  # (_judged_root's expression, without its frame: once a task)
                root = cache[ts.key] = _structural_root(ts) and not (
                    self._tiny_prefixes and self._tiny_task(ts)) \
                    and not _target(ts, self.scheduler)  # fmt: skip
            if root or (self.limits.caps and self._limit_names(ts)
                        and not restricted.restricted(ts)) \
                    or self._broadcast.shared(ts):  # fmt: skip
                context = self._context
                if context is None or context[0] is not ts:  # keep poke's choice for ts
                    self._context = (ts, None)
                return True
            return False
        except Exception as exc:  # (as Install._guard's wrapper does)
            self._failed("is_rootish", exc)
            return self._orig["is_rootish"](ts)


def _compute_seconds(startstops) -> float:
    """A finished task's compute seconds on its worker (the worker's ``startstops``)."""
    d = 0.0
    for ss in startstops:
        if ss["action"] == "compute":
            d += ss["stop"] - ss["start"]
    return d


def _windowed(windows: dict, worker, d: float) -> None:
    """A task finished on ``worker`` after ``d`` compute seconds (:func:`_compute_seconds`):
    the newest of the last policy.LAG_SAMPLES (at least two) kept in ``windows`` (by
    worker, newest first) for policy.lags and lags_persist."""
    last = windows.get(worker)
    windows[worker] = (d,) if last is None \
        else (d,) + last[:max(policy_module.LAG_SAMPLES, 2) - 1]  # fmt: skip


_first = itemgetter(0)  # (a pair's newest: _uneven)


def _uneven(paces: dict) -> bool:
    """Do two workers' paces at a group's roots (``paces``: by worker, its last two compute
    seconds, the older NaN until known) differ by more than policy.IDLE_PACE times, so an
    idle worker's take may apply (IDLE_WAKE)? By policy.WAKE_SAMPLES: 3, every known sample
    of one over IDLE_PACE times every one of another (one worker's two alike, as
    policy.clearly_slower asks, so one slow load beside a fast one is not enough); 2, one's
    last over the other's longer; 1, the last of each. A worker's own samples never meet
    the test (its shortest is at most its longer)."""
    pace = policy_module.IDLE_PACE  # (0: no idle takes, nothing to wake for)
    if not pace or len(paces) < 2:
        return False
    samples = policy_module.WAKE_SAMPLES
    # (max / min of a pair skip its NaN: a comparison with NaN is False, the first kept)
    slow = max(map(min if samples == 3 else _first, paces.values()))
    # (a zero sample, a root timed at 0 s, is no pace: it would turn the test off)
    fast = min(filter(None, map(_first if samples == 1 else max, paces.values())),
               default=0)  # fmt: skip
    return slow > pace * fast > 0


def _apart(paces: dict) -> bool:
    """Is some worker's last root of a group slower than another worker's shortest known
    one by the least of the factors the group verdicts are found by (policy.SLOWER for
    clearly_slower: ``_slow_groups``; PACE_SLOWER for paced_slower, IDLE_PACE for
    idle_takes: ``_paced_groups``, ``_idle_groups``)? Each of those asks at least this of
    a pair of workers' paces, so with no such pair left (a worker left: remove_worker) the
    group's verdicts have nothing to rest on (review50: they stayed until the group went).
    O(workers^2) at worst: asked only as a worker leaves, of its groups."""
    factor = min(filter(None, (policy_module.SLOWER, policy_module.PACE_SLOWER,
                               policy_module.IDLE_PACE)), default=0)  # fmt: skip
    for w, pace in paces.items():
        least = min((x for x in pace if x == x and x > 0), default=0)
        if least and factor and any(o[0] > factor * least for v, o in paces.items()
                                    if v != w):  # fmt: skip
            return True
    return False


def _paced(paces: dict, worker, d: float) -> None:
    """A root finished on ``worker`` after ``d`` compute seconds (:func:`_compute_seconds`):
    the last of the two kept in ``paces`` (its group's, by worker) for
    policy.clearly_slower (Plugin._by_held, _heavier)."""
    last = paces.get(worker)
    paces[worker] = (d, last[0] if last is not None else math.nan)

