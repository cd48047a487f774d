"""Thread runtime, the embedded default: executes the core's actions on a pool of threads.

It only executes: the calling thread feeds completions to the core and hands out what the
core says to run; worker threads run tasks and measure results with ``dask.sizeof``.
On failure or Ctrl-C the caller gets the exception at once: the worker threads are told to
stop and abandoned (daemons), a task still running ends on its own, and its result is
dropped. Computes running at the same time in one process (in several threads, or nested
inside a task) share one memory budget through :data:`LEDGER`.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import queue
import threading
import time
import warnings
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

import numpy as np
from dask.sizeof import sizeof

from .core import Failed, Finished, Load, Release, Run, Scheduler, Spill
from .live import state_codes
from .local_steering import RECHECK, Steering, buffer_of
from .measure import (
    LOOSE_FROM,
    Governor,
    leave_freed_memory_to_glibc,
    return_freed_memory_to_os,
    rss_reader,
)
from .spill import Loading, SpillStore
from .trace import Memory, SpillEvent, TaskEnd, Trace, collected_in

logger = logging.getLogger("tidegate.local")

_STOP = object()
_WAKE = object()  # the spill writer failed: wake the caller to report it

MEMORY_SAMPLE_INTERVAL = 0.005  # seconds between trace memory samples, at most


@dataclass
class RunStats:
    """What one run did. Pass one as ``tidegate.get(..., stats=RunStats())`` (or through
    ``compute(scheduler="tidegate", stats=s)``) and it is filled in, on failure too."""

    tasks: int = 0
    wall_time: float = 0.0
    peak_held_bytes: float = 0.0
    peak_roots_held: int = 0
    core_time: float = 0.0  # time spent inside the core (decisions)
    ingest_time: float = 0.0  # dask graph -> TaskGraph, priorities and roots (set by bridge)
    bytes_spilled: int = 0  # measured sizes (dask.sizeof) of results moved to disk
    bytes_loaded: int = 0
    spill_file_bytes: int = 0  # bytes written to spill files
    spill_time: float = 0.0  # seconds spent writing and reading spill files
    memory_limit: float = 0.0  # this run's memory_limit (bytes of RSS above baseline; inf: none)
    lowest_budget: float = 0.0  # the smallest budget for held results it ran under
    peak_memory: float = 0.0  # highest RSS above the level at compute start (limited runs)
    fewest_threads: int = 0  # threads at once, at the fewest (memory_limit can lower them)
    bytes_dropped: int = 0  # roots' outputs discarded instead of spilled (they ran again)
    tasks_recomputed: int = 0  # runs of such roots again
    # The fewer-at-once gate (limited runs): how often a ready task waited beside a running
    # one because it did not fit the ceiling, and the thread-seconds a thread stood idle so.
    # Of those waits, how many a fresh RSS reading (after the step's releases) says had room
    # for the task even if the running ones still grow by all they are counted to need
    # (``_with_room``), and if they grow no more (``_with_room_now``).
    gate_refusals: int = 0
    gate_idle_time: float = 0.0
    gate_refusals_with_room: int = 0
    gate_refusals_with_room_now: int = 0
    # Set when memory_limit kept fewer tasks running than the threads asked for, for a
    # quarter of the tasks or more (logged as a warning, once per compute): the limit at
    # which the runtime's own rules would run them all (bytes; 0: not the case).
    limit_for_all_threads: float = 0.0


_stats_sink: contextvars.ContextVar[list | None] = contextvars.ContextVar(
    "tidegate_stats_sink", default=None
)


def collect_stats() -> contextlib.AbstractContextManager[list[RunStats]]:
    """Every compute run inside the block (in this context, so also those nested in its
    tasks) appends its :class:`RunStats` to the list yielded: for computes a library starts
    (``ds.to_zarr``), where no ``stats=`` can be passed."""
    return collected_in(_stats_sink)


def stats_sink() -> list | None:
    return _stats_sink.get()


class Ledger:
    """One memory budget per process, shared by the computes running at the same time.

    The process total is ``tidegate.memory-limit`` (an "auto" limit is measured once, when
    the first of a group of overlapping computes starts, so a compute nested in a task does
    not measure memory its parent already holds). Each compute may hold at most its own
    ``memory_limit`` and at most what the total leaves after the others' held bytes. A
    nested compute's held bytes are its own: the parent counts the task's result only once
    it is returned, so nothing is counted twice.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._runs: dict[int, Scheduler] = {}
        self._total: float | None = None

    def open(self, core: Scheduler, total: Callable[[], float]) -> float:
        """Register a run; returns the process total it shares."""
        fresh = total()  # outside the lock: it may ask the ledger itself
        with self._lock:
            if not self._runs or self._total is None:
                self._total = fresh
            self._runs[id(core)] = core
            return self._total

    def total(self, measure: Callable[[], float]) -> float:
        """The total shared by the computes running now, or a fresh measure if none runs."""
        with self._lock:
            if self._runs and self._total is not None:
                return self._total
        return measure()

    def close(self, core: Scheduler) -> None:
        with self._lock:
            self._runs.pop(id(core), None)

    def budget(self, core: Scheduler, cap: float, total: float) -> float:
        runs = self._runs
        if len(runs) < 2:
            return cap
        others = 0.0
        for c in list(runs.values()):  # a snapshot: list() of a dict is atomic under the GIL
            if c is not core:
                others += sum(w.held_bytes for w in c.workers)
        return max(1.0, min(cap, total - others))

    @property
    def active(self) -> int:
        return len(self._runs)


LEDGER = Ledger()


@dataclass
class Hooks:
    """The dask options a run honours (see bridge.get), all optional."""

    pretask: Callable[[int], None] | None = None
    posttask: Callable[[int, Any, Any], None] | None = None  # (task, result, worker id)
    get_id: Callable[[], Any] | None = None  # worker id for posttask, called on the worker
    pack_exception: Callable | None = None  # (exc, dumps) -> (exc, tb), on the worker
    raise_exception: Callable | None = None  # (exc, tb), on the caller
    rerun_exceptions_locally: bool = False
    executor: Executor | None = None  # run the worker loops on this pool
    spill_dir: str | None = None
    recompute_roots: bool = True  # drop cheap rereadable roots' outputs, run them again
    cap: float = float("inf")  # this run's memory_limit
    baseline: int | None = None  # RSS at compute start: memory_limit bounds RSS above it
    floor: float = 0.0  # the budget for held results never goes below this
    chunk: float = 0.0  # the largest chunk the graph's array metadata names
    threads_asked: int = 0  # the threads the user asked for (0: as many as the workers have)
    total: Callable[[], float] | None = None  # the process-wide limit (Ledger)
    trace: Trace | None = None


_worker = threading.local()  # .busy on threads running tidegate's worker loops


def in_worker_loop() -> bool:
    """Is this thread running one of tidegate's worker loops (a compute nested in a task)?"""
    return getattr(_worker, "busy", False)


def _worker_loop(tasks, done, execute, thread: int, get_id, pack, t0: float) -> None:
    _worker.busy = True
    try:
        _loop(tasks, done, execute, thread, get_id, pack, t0)
    finally:
        _worker.busy = False  # the thread may belong to a user's pool


def _loop(tasks, done, execute, thread: int, get_id, pack, t0: float) -> None:
    # Start and stop times (seconds since t0): a root's cost decides between running it
    # again and spilling, and a trace records them. The thread's number comes last, for a
    # trace (the worker id a get_id returns may be anything).
    clock = time.perf_counter
    while True:
        item = tasks.get()
        if item is _STOP:
            return
        i, inputs = item
        item = result = None
        start = clock() - t0
        try:
            result = execute(i, inputs)
            worker = thread if get_id is None else get_id()  # inside: its error is the task's
        except BaseException as exc:  # noqa: BLE001 - handed back and re-raised by the caller
            done.put((i, False, _packed(exc, pack), 0, thread, start, clock() - t0, thread))
        else:
            stop = clock() - t0
            try:
                nbytes = sizeof(result)
            except Exception:  # a broken __sizeof__ is not the task's failure
                nbytes = None
            done.put((i, True, result, nbytes, worker, start, stop, thread))
        inputs = result = None  # hold no references once handed back: release frees memory


def _packed(exc: BaseException, pack) -> Any:
    if pack is None:
        return exc
    try:
        return pack(exc, lambda x: x)  # dask's pack_exception(e, dumps); dumps is identity here
    except BaseException as raised:  # noqa: BLE001 - dask's default packer re-raises
        return raised


def run(
    core: Scheduler,
    execute: Callable[[int, Any], Any],
    gather: Callable[[int, dict], Any],
    hooks: Hooks | None = None,
    stats: RunStats | None = None,
    data: dict | None = None,
) -> dict[int, Any]:
    """Run a whole graph; returns ``{output task: result}``.

    ``gather(i, data)`` builds task i's inputs from the results held (``{task: value}``) on
    the calling thread; ``execute(i, inputs)`` runs it on a worker thread. Results the core
    spills go to a temporary folder under ``hooks.spill_dir``, removed when the run ends,
    however it ends. The first failing task's exception is raised as soon as it is seen,
    with its own traceback; nothing new starts after it, or after a Ctrl-C.
    """
    undo: list[Callable[[], None]] = []
    try:
        return _run(core, execute, gather, hooks, stats, data, undo)
    finally:  # an error (a bug, a Ctrl-C) in the setup, before _run's own try takes over
        _release_all(undo)


def _release_all(undo: list) -> None:
    """Every release of ``undo``, last first, each whatever the one before raised (a second
    Ctrl-C in a join left the ledger counting a run that was gone, and its threads alive);
    the first error is raised after."""
    error = None
    for release in reversed(undo):
        try:
            release()
        except BaseException as e:
            error = error or e
    if error is not None:
        raise error


def _run(core, execute, gather, hooks, stats, data, undo: list) -> dict[int, Any]:
    hooks = hooks or Hooks()
    stats = stats if stats is not None else RunStats()
    graph = core.graph
    keys = graph.keys
    data = {} if data is None else data
    trace = hooks.trace
    t0 = time.perf_counter()
    stats.tasks = len(graph)
    stats.memory_limit = stats.lowest_budget = hooks.cap
    total = LEDGER.open(core, hooks.total or (lambda: hooks.cap))
    undo.append(lambda: LEDGER.close(core))
    # The threads chunk metadata fits (bridge._fit) start; a limited run's pool has all the
    # threads asked, for tasks measured to need less than the metadata's guess.
    threads = sum(w.threads for w in core.workers)
    asked = max(hooks.threads_asked, threads)
    governed = hooks.baseline is not None and hooks.cap < float("inf") and LEDGER.active == 1
    max_threads = asked if governed else threads
    pool = _Threads(max_threads, _reading(execute), hooks, t0)
    undo.append(pool.abandon)
    # Values on their way to disk are out of the core's books: a tenth of the budget at most.
    backlog = 64e6 if hooks.cap == float("inf") else 0.1 * hooks.cap
    disk = SpillStore(hooks.spill_dir, backlog, on_error=pool.wake)
    # The process's memory steers the budget for held results (one run at a time: a run
    # nested in another's task, or beside it, shares the outer run's held-bytes books).
    steer = None
    limited = hooks.cap < float("inf")
    if governed:
        governor = Governor(hooks.cap, hooks.baseline, hooks.floor, hooks.chunk,
                            pending=lambda: disk.backlog_bytes).start()
        undo.append(governor.stop)
        steer = Steering(core, governor, hooks, stats, LEDGER, total, threads, asked, disk)
    buffers = steer.buffers if steer is not None else None
    # Roots' seconds and bytes per group, against the disk's: run a root again or spill it.
    rerun_cost = _RerunCost(core, disk) if core._may_spill and hooks.recompute_roots else None
    recomputed, views = core.recomputed, core.views
    # Results that view their single input's buffer: spilling either of the two alone
    # frees nothing while the other is held (the core spills others first).
    one_input = (np.diff(graph.dep_ptr) == 1).tolist() if core._may_spill else None
    dep_ptr, dep_idx = core._dep_ptr, core._dep_idx
    stats.fewest_threads = threads
    core_time = 0.0
    pretask, posttask = hooks.pretask, hooks.posttask
    spills = trace.spills if trace is not None else None
    nbytes = core.nbytes

    def moved(i: int, direction: str) -> None:
        """A trace's spill or load of task i's result (spills is None: no trace)."""
        spills.append(SpillEvent(time.perf_counter() - t0, "local", str(keys[i]),
                                 int(nbytes[i]), direction))  # fmt: skip

    # Loads are read on the worker that runs the task needing them: data holds a Loading
    # until then; ``loading`` lists those, so a run without any pays one falsy check.
    loading: dict[int, Loading] = {}

    def dispatch(actions: list) -> None:
        if steer is not None and len(actions) > 1:
            # Spills and releases before runs: the core may spill after handing out a task
            # (room for its loads), and a value on its way to disk is still in memory, so
            # the task must not start beside it (settle, below). Inputs of running tasks
            # are never spilled, so no run needs a value spilled after it in the list.
            actions = [a for a in actions if type(a) is not Run] + [
                a for a in actions if type(a) is Run]  # fmt: skip
        for a in actions:
            kind = type(a)
            if kind is Run:
                i = a.task
                if steer is not None and disk.backlog_bytes > backlog:
                    # A value larger than the backlog is still being written: the core
                    # counted it out, so a task started beside it could take the process
                    # past the limit (issue 10's rechunk: 120 MB on a slow disk).
                    disk.settle(loading)
                inputs = gather(i, data)
                if loading:
                    inputs = _with_loads(inputs, loading, data, core)
                if pretask is not None and not recomputed[i]:  # once per key, as dask's
                    pretask(i)
                if steer is not None:
                    steer.handed_out(i, pool.inflight)
                pool.submit(i, inputs)
            elif kind is Release:
                value = data.pop(a.task, _STOP)
                if buffers is not None:
                    buffers.remove(a.task, value)
                if value is _STOP:
                    disk.delete(a.task)
                elif type(value) is Loading:
                    loading.pop(a.task, None)
                    value.discard()
            elif kind is Spill:
                value = data.pop(a.task)
                if buffers is not None:
                    buffers.remove(a.task, value)
                if type(value) is Loading:  # spilled again before any task read it back
                    loading.pop(a.task, None)
                    value = value.get()
                disk.put(a.task, value, keys[a.task], nbytes[a.task])
                if spills is not None:
                    moved(a.task, "spill")
            elif kind is Load:
                data[a.task] = loading[a.task] = Loading(disk, a.task)
                if spills is not None:
                    moved(a.task, "load")

    last_sample = -1.0
    rss = groups = roots = None
    if trace is not None:
        rss = rss_reader()
        groups = [graph.group_names[g] for g in graph.group.tolist()]
        roots = graph.root.tolist()
    sampled_moves = 0  # spills and loads seen by the last sample

    def sample(now: float) -> None:
        nonlocal last_sample, sampled_moves
        last_sample = now
        sampled_moves = len(spills)
        ws = core.workers
        trace.memory.append(Memory(
            now, "local", int(sum(w.held for w in ws)), rss(),
            int(sum(w.roots_running + w.roots_untouched for w in ws)),
            int(sum(w.spilled for w in ws)),
        ))  # fmt: skip

    if limited:  # till the run ends (finally below): set here, an error above leaves none;
        # a governor tightens them once its process nears the limit
        return_freed_memory_to_os(at_once=not governed or hooks.cap < LOOSE_FROM)
        undo.append(leave_freed_memory_to_glibc)
    undo.clear()  # the finally below releases all of it from here on
    try:
        c0 = time.perf_counter()
        actions = core.start()
        core_time += time.perf_counter() - c0
        if trace is not None:
            sample(0.0)
        dispatch(actions)
        while pool.inflight and not core.done:
            events = []
            finished = []
            error = None
            viewing: set[int] = set()  # results viewing a buffer held already
            batch = pool.results(RECHECK if steer is not None and steer.recheck else None)
            if not batch:  # a thread waits at the gate: read again, it may fit now
                steer.recheck_ceiling(dispatch)
                continue
            if steer is not None:
                steer.recheck = False
                steer.results_arrived()
            if loading:  # results viewing an input read back name the copy's buffer
                _settle_loads(loading, data, core)
            for item in batch:
                if item is _WAKE:
                    continue
                i, ok, value = item[0], item[1], item[2]
                if ok:
                    data[i] = value
                    n = item[3]
                    if n is None:
                        n = _unmeasured(keys[i], value)
                    if buffers is not None:
                        buffers.add(i, value, n)
                    if one_input is not None and type(value) is np.ndarray:
                        # Its buffer, named for the core (the id of a live object is unique
                        # while it lives, and a held result keeps its buffer alive).
                        core.buffer[i] = b = id(buffer_of(value))
                        if b in core._holders:  # a view of memory held already: none new
                            viewing.add(i)
                    events.append(Finished(i, n))
                    if rerun_cost is not None:
                        rerun_cost.ran(i, n, item[6] - item[5])
                    if one_input is not None and one_input[i] and type(
                            value) is np.ndarray and value.base is not None and _views(
                            value, data.get(dep_idx[dep_ptr[i]])):  # fmt: skip
                        views[i] = 1  # keeps its input's memory: dropping that frees none
                else:
                    n = 0
                    events.append(Failed(i))
                    if error is None:
                        error = (i, value)
                if posttask is not None:
                    finished.append((i, value, item[4], bool(recomputed[i])))
                if trace is not None:
                    trace.tasks.append(TaskEnd(
                        str(keys[i]), groups[i], "local", item[7], item[5], item[6], int(n),
                        roots[i], ok,
                    ))  # fmt: skip
                value = item = None
            batch = None  # hold no references: a release must free its value
            if disk.error is not None:
                raise disk.error
            if rerun_cost is not None:
                rerun_cost.decide()
            if steer is not None:
                steer.step(events, viewing)
            elif LEDGER.active > 1:  # other computes run: this one's share of the budget
                budget = LEDGER.budget(core, hooks.cap, total)
                for w in core.workers:
                    w.budget = budget
                if budget < stats.lowest_budget:
                    stats.lowest_budget = budget
            c0 = time.perf_counter()
            if steer is not None:
                steer.started = False
            if posttask is None:
                waits = core.extra_waits
                actions = core.handle_many(events)
                core_time += time.perf_counter() - c0
                if error is not None:
                    _raise_task_error(error, hooks, execute, gather, data)
                dispatch(actions)
                if steer is not None:
                    steer.stepped(waits, pool.inflight)
            else:
                # dask.local's order: one completion at a time, its releases done, then its
                # posttask; tasks it made ready start after the whole batch.
                runs = []
                for event, (i, value, worker_id, again) in zip(events, finished):
                    actions = core.handle_many((event,))
                    if error is not None and type(event) is Failed:
                        _raise_task_error(error, hooks, execute, gather, data)
                    runs += [a for a in actions if type(a) is Run]
                    dispatch([a for a in actions if type(a) is not Run])
                    if type(event) is Finished and not again:
                        posttask(i, value, worker_id)
                core_time += time.perf_counter() - c0  # callbacks included: they are rare
                finished = value = None
                dispatch(runs)
                if steer is not None:
                    steer.stepped(None, pool.inflight)
            if trace is not None:
                now = time.perf_counter() - t0
                # Spills and loads are rare and change the picture: always sampled.
                if now - last_sample >= MEMORY_SAMPLE_INTERVAL or len(spills) != sampled_moves:
                    sample(now)
        if not core.done:  # cannot happen while the core's invariants hold
            raise RuntimeError(_stuck(core))
        results = {}
        for i in dict.fromkeys(graph.outputs.tolist()):  # a key asked for twice: read once
            if i in data:
                results[i] = _value(data[i])
            else:  # spilled: read back for the caller
                results[i] = disk.pop(i)
                core.bytes_loaded += nbytes[i]
                if spills is not None:
                    moved(i, "load")
        disk.flush()  # a spill that failed must not pass silently
    except BaseException:
        # Failure, Ctrl-C or a bug: nothing new starts, and nobody waits for running tasks
        # (one may never return); their threads exit once it does.
        core.cancel()
        pool.abandon()
        disk.close(wait=False)
        raise
    else:
        pool.close()
        disk.close()
        if steer is not None:
            steer.finish()
    finally:
        try:
            LEDGER.close(core)
            if steer is not None:
                steer.governor.stop()  # a join: a second Ctrl-C may land here
                stats.peak_memory = steer.governor.peak
        finally:  # else glibc's settings stayed on for every later compute in the process
            if limited:
                leave_freed_memory_to_glibc()
        if trace is not None:
            sample(time.perf_counter() - t0)
        stats.bytes_spilled, stats.bytes_loaded = core.bytes_spilled, core.bytes_loaded
        stats.bytes_dropped, stats.tasks_recomputed = core.bytes_dropped, core.n_recomputed
        stats.spill_file_bytes, stats.spill_time = disk.bytes_written, disk.seconds
        stats.wall_time = time.perf_counter() - t0
        stats.core_time = core_time
        stats.peak_held_bytes = max(w.peak_held for w in core.workers)
        stats.peak_roots_held = core.peak_roots_held
    return results


# A disk round trip (write, then read back) per byte, assumed until the spill store has
# moved enough to measure it: 250 MB/s each way, a laptop SSD through pickle.
ROUND_TRIP = 2 / 250e6
MEASURED = 64e6  # bytes moved to and from disk before its measured speed counts
# Running again wins up to this many times the round trip's seconds: a spilled value stays
# in memory until written and takes disk space, a root run again needs neither; and the
# round trip times the copy into the page cache, not the kernel's write to the disk after
# (measured on page-cached zarr: reads 2.6-3.3 ns/byte, round trips 1.4-2.7, both on busy
# cores; at load 8, reads 0.6-1.4 against trips 0.86-1.23: at 2x, one vorticity run at
# 140 MB in three chose spilling, 2.5 GB written against 1.6).
RERUN_SLACK = 4.0


class _RerunCost:
    """Which groups of roots (tasks with no inputs that read their data from a source:
    ``graph.rereadable``) are cheaper to run again than their output is to write to disk
    and read back: seconds per byte of the group's runs so far against the spill store's
    measured round trip (assumed until it has measured some). Sets ``core.rerun``; the
    core decides which result goes. Other roots (random draws, delayed loaders) may not
    return the same data twice: run again, two consumers of one root saw different data."""

    def __init__(self, core: Scheduler, disk: SpillStore):
        g = core.graph
        self.core, self.disk = core, disk
        self.group = g.group.tolist()
        nodeps = np.diff(g.dep_ptr) == 0
        self.eligible = (g.root & nodeps & g.rereadable).tolist()
        self.seconds: dict[int, float] = {}
        self.bytes: dict[int, float] = {}
        self.changed = False

    def ran(self, i: int, nbytes: int, seconds: float) -> None:
        if self.eligible[i]:
            g = self.group[i]
            self.seconds[g] = self.seconds.get(g, 0.0) + seconds
            self.bytes[g] = self.bytes.get(g, 0.0) + nbytes
            self.changed = True

    def decide(self) -> None:
        disk = self.disk
        moved = disk.bytes_written + disk.bytes_read
        if not self.changed and moved < MEASURED:
            return
        self.changed = False
        trip = 2 * disk.seconds / moved if moved >= MEASURED else ROUND_TRIP
        rerun = self.core.rerun
        for g, s in self.seconds.items():
            b = self.bytes[g]
            rerun[g] = b > 0 and s / b < RERUN_SLACK * trip


def _views(value: np.ndarray, source) -> bool:
    """Is ``value`` a view of array ``source``'s memory (not of some other buffer, such as
    the bytes a reader decoded it from)?"""
    return type(source) is np.ndarray and buffer_of(value) is buffer_of(source)


def _raise_task_error(error, hooks: Hooks, execute, gather, data) -> None:
    i, exc = error
    if hooks.rerun_exceptions_locally:
        # Run it again here, on the caller's thread, so a debugger stops in the task.
        execute(i, {k: _value(v) for k, v in gather(i, data).items()})
    if isinstance(exc, tuple):  # packed by a pack_exception: (exc, traceback)
        exc, tb = exc
        if hooks.raise_exception is not None:
            hooks.raise_exception(exc, tb)
        raise exc.with_traceback(tb)
    if hooks.raise_exception is not None:
        hooks.raise_exception(exc, exc.__traceback__)
    raise exc


class _WithLoads(dict):
    """A task's inputs of which some are still on disk: the worker reads them first."""


def _with_loads(inputs: dict, loading: dict, data: dict, core=None) -> dict:
    _settle_loads(loading, data, core)
    if any(type(v) is Loading for v in inputs.values()):
        return _WithLoads(inputs)
    return inputs


def _settle_loads(loading: dict, data: dict, core=None) -> None:
    """Values read back since the last look replace their Loading in data for good; a
    read copy has a buffer of its own, named for the core."""
    for j in [j for j, w in loading.items() if w.read]:
        data[j] = value = loading.pop(j).value
        if core is not None:
            core.rename(j, id(buffer_of(value)) if type(value) is np.ndarray else 0)


def _value(v):
    return v.get() if type(v) is Loading else v


def _reading(execute):
    """``execute`` that first reads a task's inputs still on disk, on the worker thread."""

    def run_task(i: int, inputs):
        if type(inputs) is _WithLoads:
            inputs = {k: _value(v) for k, v in inputs.items()}
        return execute(i, inputs)

    return run_task


def _stuck(core: Scheduler) -> str:
    keys = core.graph.keys
    done = state_codes("finished")
    left = [keys[i] for i, s in enumerate(core.state) if s not in done][:5]
    return (f"tidegate stopped with {len(keys) - core.n_finished} tasks left and nothing "
            f"running (a scheduler bug), e.g. {left!r}")  # fmt: skip


UNMEASURED_BYTES = 64 * 2**20


def _unmeasured(key, value) -> int:
    """Size of a result dask.sizeof cannot measure: say so, and count it pessimistically."""
    warnings.warn(
        f"dask.sizeof failed on the result of {key!r} ({type(value).__name__}); tidegate "
        f"counts it as {UNMEASURED_BYTES // 2**20} MiB against the memory budget. Register "
        f"a size with dask.sizeof.sizeof.register for exact accounting.",
        RuntimeWarning,
        stacklevel=2,
    )
    return UNMEASURED_BYTES


class _Threads:
    """Worker loops fed through a queue; counts the tasks handed out and not yet back.

    The loops run on threads of their own ("tidegate-k", daemons) or, given an executor,
    on its threads (each loop occupies one of them for the run)."""

    def __init__(self, n: int, execute, hooks: Hooks, t0: float):
        self.tasks: queue.SimpleQueue = queue.SimpleQueue()
        self.done: queue.SimpleQueue = queue.SimpleQueue()
        self.inflight = 0
        self.n = n
        ctx = contextvars.copy_context()  # the caller's context (e.g. dask.config.set)
        self.threads: list[threading.Thread] = []
        started = 0
        try:
            for k in range(n):
                args = (_worker_loop, self.tasks, self.done, execute, k, hooks.get_id,
                        hooks.pack_exception, t0)  # fmt: skip
                if hooks.executor is not None:
                    hooks.executor.submit(ctx.copy().run, *args)
                else:
                    t = threading.Thread(target=ctx.copy().run, args=args,
                                         name=f"tidegate-{k}", daemon=True)  # fmt: skip
                    t.start()
                    self.threads.append(t)
                started += 1
        except BaseException:  # (no thread to be had, a Ctrl-C): the loops started stop
            for _ in range(started):
                self.tasks.put(_STOP)
            raise

    def submit(self, i: int, inputs) -> None:
        self.inflight += 1
        self.tasks.put((i, inputs))

    def wake(self) -> None:
        self.done.put(_WAKE)

    def results(self, timeout: float | None = None) -> list:
        """Block for one result, then take every other one already waiting; none if
        ``timeout`` seconds pass first."""
        done = self.done
        if timeout is not None:
            try:
                first = done.get(timeout=timeout)
            except queue.Empty:
                return []
        else:
            first = self._get()
        batch = [first]
        # One consumer: what qsize() counts is there to take (cheaper than get_nowait's Empty).
        for _ in range(done.qsize()):
            batch.append(done.get_nowait())
        self.inflight -= len(batch)
        if _WAKE in batch:  # rare: the spill writer failed
            self.inflight += batch.count(_WAKE)
        return batch

    def _get(self):
        # A timeout keeps the calling thread responsive to Ctrl-C on every platform.
        while True:
            try:
                return self.done.get(timeout=0.2)
            except queue.Empty:
                continue

    def abandon(self) -> None:
        """Tell every loop to stop after its current task; wait for none of them."""
        for _ in range(self.n):
            self.tasks.put(_STOP)

    def close(self) -> None:
        self.abandon()
        for t in self.threads:
            t.join()  # all idle: the run is complete
