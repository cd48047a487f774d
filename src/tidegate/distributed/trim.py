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
"""

from __future__ import annotations

import ast

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
