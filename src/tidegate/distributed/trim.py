"""dask's ``check_idle_saturated`` without the statement that keeps ``idle_task_count``.

dask calls ``check_idle_saturated`` twice per task (a task's start and its end). Its last
statement files the worker in ``idle_task_count``: the workers with room in dask's queue,
read only by dask's own queue release and root placement, which tidegate replaces (its
``idle_task_count`` is a set that stays empty). That statement costs three Python calls
(``_worker_full``, ``_task_slots_available``, the set's ``add``): ~1 us a call, ~2 us a
task, 1% of the scheduler's CPU per task in the twin at 100 workers.

The copy is dask's own function recompiled from its own source with that one statement
left out, so the rest (``idle``, ``saturated``) is exactly dask's in whatever release is
installed. It is made only when the statement is found as expected: an ``if`` whose test
calls nothing but ``_worker_full`` and whose branches only add the worker to
``self.idle_task_count`` or discard it; otherwise dask's own method stays.

Where dask's method and the helpers it calls read exactly what they read in distributed
2025.4-2026.8 (``quick``: their names, constants and locals checked), the plugin runs
``_check_idle_saturated`` instead: the same (without that statement), restated with its
helpers inlined and a worker with fewer tasks processing than threads answered before
any occupancy is summed (dask's ``is_unoccupied`` answers it from that count alone).
"""

from __future__ import annotations

import ast
from types import FunctionType, MethodType

from distributed.core import Status

from . import recompile

_made: dict = {}  # dask's function -> its copy (or None): compiled once per process


def without_idle_task_count(fn):
    """``fn`` (dask's ``SchedulerState.check_idle_saturated``) without its
    ``idle_task_count`` statement, or None (the statement is not as expected)."""
    return recompile.once(_made, fn, _compile)


def _compile(fn, tree, fdef, filename):
    keeps = [s for s in fdef.body if _keeps_idle_task_count(s)]
    if len(keeps) != 1 or len(fdef.body) < 2 or _mentions(fdef, keeps[0]):
        return None
    fdef.body.remove(keeps[0])
    return recompile.dressed(recompile.run(tree, filename, fn)[fn.__name__], fn)


def _keeps_idle_task_count(stmt) -> bool:
    """``if <calls only _worker_full>: self.idle_task_count.add(...) else: ....discard(...)``"""
    if not isinstance(stmt, ast.If) or not stmt.body or not stmt.orelse:
        return False
    for node in ast.walk(stmt.test):
        if isinstance(node, ast.Call) and not (
                isinstance(node.func, ast.Name) and node.func.id == "_worker_full"):  # fmt: skip
            return False
    return all(_files(s) for s in stmt.body + stmt.orelse)


def _files(stmt) -> bool:
    """``self.idle_task_count.add(x)`` or ``.discard(x)``, one plain name as argument."""
    if not isinstance(stmt, ast.Expr) or not isinstance(stmt.value, ast.Call):
        return False
    call = stmt.value
    f = call.func
    return (isinstance(f, ast.Attribute) and f.attr in ("add", "discard")
            and isinstance(f.value, ast.Attribute) and f.value.attr == "idle_task_count"
            and isinstance(f.value.value, ast.Name) and f.value.value.id == "self"
            and len(call.args) == 1 and isinstance(call.args[0], ast.Name)
            and not call.keywords)  # fmt: skip


def _mentions(fdef, dropped) -> bool:
    """Does the rest of the function read ``idle_task_count`` (then it is not dead)?"""
    for stmt in fdef.body:
        if stmt is dropped:
            continue
        for node in ast.walk(stmt):
            if isinstance(node, ast.Attribute) and node.attr == "idle_task_count":
                return True
    return False


class _NoWorkers(set):
    """The scheduler's ``idle_task_count`` while tidegate owns the queue: always empty."""

    __slots__ = ()

    def add(self, ws) -> None:
        pass


# What quick's restatement reads, per dask function (distributed 2025.4-2026.8): its
# co_names, its constants (docstrings left out) and its locals. Anything else: no restatement.
_SHAPES = {
    "check_idle_saturated": (
        ("total_nthreads", "status", "Status", "closed", "occupancy", "len", "processing",
         "saturated", "discard", "running", "idle", "pop", "address", "is_unoccupied",
         "nthreads", "total_occupancy", "add", "_worker_full", "WORKER_SATURATION",
         "idle_task_count"),
        (0, None, 0.4, 1.9), ("self", "ws", "occ", "p", "nc", "pending")),
    "is_unoccupied": (("nthreads", "total_occupancy", "total_nthreads"), (None, 2),
                      ("self", "ws", "occupancy", "nprocessing", "nthreads")),
    "_calc_occupancy": (
        ("items", "_get_prefix_duration", "task_prefixes", "bandwidth", "validate", "max"),
        (None, 0.0, 0),
        ("self", "task_prefix_count", "network_occ", "res", "prefix_name", "count",
         "duration", "occ")),
    "_get_prefix_duration": (("duration_average", "max_exec_time", "UNKNOWN_TASK_DURATION"),
                             (None, 0, 2), ("self", "prefix", "duration")),
    "total_occupancy": (("_calc_occupancy", "_task_prefix_count_global",
                         "_network_occ_global"), (None,), ("self",)),
    "occupancy": (("_occupancy_cache", "scheduler", "_calc_occupancy", "task_prefix_count",
                   "_network_occ"), (None,), ("self",)),
    "scheduler": (("scheduler_ref",), (None,), ("self", "s")),
}

_RUNNING, _CLOSED = Status.running, Status.closed
_quick_made: dict = {}  # dask's check_idle_saturated -> _check_idle_saturated dressed as it
_WORKER = ("occupancy", "scheduler")  # (WorkerState's properties; the rest the scheduler's)


def quick(scheduler):
    """``_check_idle_saturated`` bound to ``scheduler``, or None: where dask's
    check_idle_saturated, is_unoccupied, _calc_occupancy, _get_prefix_duration and the
    total_occupancy / WorkerState.occupancy properties are not as restated (or the
    scheduler overrides one of them on itself), dask's own (or its trimmed copy) stays."""
    from distributed.scheduler import WorkerState

    cls = type(scheduler)
    if any(n in scheduler.__dict__ for n in _SHAPES if n not in _WORKER):
        return None
    for name, (names, consts, local) in _SHAPES.items():
        fn = getattr(WorkerState if name in _WORKER else cls, name, None)
        if not recompile.same_shape(fn, names, consts, local):
            return None
    dask = cls.check_idle_saturated
    if dask.__defaults__ != (-1.0,):
        return None
    fn = _quick_made.get(dask)
    if fn is None:  # (a copy per dask function, dressed as it: __wrapped__ names it)
        fn = _quick_made[dask] = recompile.dressed(FunctionType(
            _check_idle_saturated.__code__, _check_idle_saturated.__globals__,
            dask.__name__), dask)  # fmt: skip
    return MethodType(fn, scheduler)


def _check_idle_saturated(self, ws, occ: float = -1.0) -> None:
    """dask's ``SchedulerState.check_idle_saturated`` (``idle``, ``saturated``) as
    ``quick`` found it, without the idle_task_count statement, restated: is_unoccupied,
    the occupancy properties, _calc_occupancy and _get_prefix_duration inlined (the same
    arithmetic in the same order), the total occupancy summed once (dask sums it again for
    the saturated test, with nothing changed between), and a running worker with fewer
    tasks than threads filed idle at once (is_unoccupied's first test; dask summed the
    worker's occupancy first, read by nothing then; twin rechunk-add 100 x 4: 35% of the
    calls). ``idle`` (a SortedDict) is set or popped only when that changes it: its
    Python __setitem__ / pop otherwise set the same value or pop nothing."""
    status = ws.status  # (read once, the members as globals: dask's two tests, reordered)
    if status != _RUNNING:
        if self.total_nthreads == 0 or status == _CLOSED:
            return
        saturated = self.saturated
        if saturated:
            saturated.discard(ws)
        idle = self.idle
        if ws.address in idle:
            idle.pop(ws.address, None)
        return
    if self.total_nthreads == 0:
        return
    p = len(ws.processing)
    nc = ws.nthreads
    saturated = self.saturated
    idle = self.idle  # (a SortedDict: its __setitem__ and pop are Python; asked first, in C)
    if p < nc:
        if saturated:  # (mostly empty: no Python WorkerState.__hash__ for nothing)
            saturated.discard(ws)
        if idle.get(ws.address) is not ws:
            idle[ws.address] = ws
        return
    # The two sums (dask's _calc_occupancy with _get_prefix_duration inlined: the worker's,
    # then the total's) are written out here, not called: ~1.6 pairs a task, a call's frame
    # ~a quarter of a short sum's bytecodes (cpu42). Each is dask's loop, its arithmetic in
    # its order, its validate assert and its max(occ, 0) (0, an int, below 0). A plain loop
    # on purpose: cpu36b's C form (attrgetter, compress, ``reduce(add, map(mul, ...))``) ran
    # fewer bytecodes but 3-4x the time a call on Python 3.11 (lead36-findings.txt).
    prefixes = self.task_prefixes
    if occ < 0:  # (WorkerState.occupancy and .scheduler inlined: the scheduler is self,
        # whose worker ws is: dask calls it for its own workers, as the total below reads)
        occ = ws._occupancy_cache
        if not occ:  # (dask's ``or``: None or 0.0 is summed)
            res = 0.0
            for prefix_name, count in ws.task_prefix_count.items():
                duration = prefixes[prefix_name].duration_average
                if duration < 0:
                    prefix = prefixes[prefix_name]
                    if prefix.max_exec_time > 0:
                        duration = 2 * prefix.max_exec_time
                    else:
                        duration = self.UNKNOWN_TASK_DURATION
                res += duration * count
            occ = res + ws._network_occ / self.bandwidth
            if self.validate:
                assert occ >= 0, (occ, res, ws._network_occ, self.bandwidth)
            if occ < 0:
                occ = 0
    if saturated:
        saturated.discard(ws)
    res = 0.0
    for prefix_name, count in self._task_prefix_count_global.items():
        duration = prefixes[prefix_name].duration_average
        if duration < 0:
            prefix = prefixes[prefix_name]
            if prefix.max_exec_time > 0:
                duration = 2 * prefix.max_exec_time
            else:
                duration = self.UNKNOWN_TASK_DURATION
        res += duration * count
    total = res + self._network_occ_global / self.bandwidth
    if self.validate:
        assert total >= 0, (total, res, self._network_occ_global, self.bandwidth)
    per_thread = (0 if total < 0 else total) / self.total_nthreads
    if occ < nc * per_thread / 2:
        if idle.get(ws.address) is not ws:
            idle[ws.address] = ws
    else:
        if ws.address in idle:
            idle.pop(ws.address, None)
        if p > nc:
            pending = occ * (p - nc) / (p * nc)
            if 0.4 < pending > 1.9 * per_thread:
                saturated.add(ws)
