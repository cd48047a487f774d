"""Questions about one dask ``TaskState`` (is it a root, a constant, chained, read soon...)
and the small accessors the plugin's hot paths map over, shared by hooks, admission and
placement. No plugin state: what they need comes in as arguments.
"""

from __future__ import annotations

import itertools
import math
import operator
from functools import partial

from dask._task_spec import DataNode

from ..annotations import ROOT
from .. import policy as policy_module
from ..policy import (
    SHARED_FANOUT,
    MeetingPlan,
    is_root,
    is_target,
    targets_on,
    meeting_partners,
    pulls_consumer,
    read_on,
    reduces as policy_reduces,
    second_input,
    sized_by_prefix,
    unrun_input_size,
)


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


# (read in C: the plans' walks ask it of each pair's two inputs)
_group = operator.attrgetter("group")


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
    # (read as a truth value only, here and by is_root: no bool() call, once per task)
    marked = getattr(ts.run_spec, "data_producer", False)
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


def _target(ts, s) -> bool:
    """Is root ts no root after all (policy.is_target, where policy.targets_on says for
    scheduler ``s``'s threads per worker): a constant (DataNode) read as a shared handle
    that no root reads? Asked once per root (hooks' ``_root`` cache); the readers are
    walked only for a DataNode read by SHARED_FANOUT or more, and stop at the first root
    among them."""
    if not policy_module.TARGETS_NO_ROOT or len(ts.dependents) < SHARED_FANOUT \
            or not targets_on(s.total_nthreads / max(1, len(s.workers))):  # fmt: skip
        return False
    if not isinstance(ts.run_spec, DataNode) or ts.dependencies \
            or ts.annotations and ts.annotations.get(ROOT) is not None:  # fmt: skip
        return False  # (a task computed, or declared a root)
    roots_read = any(is_root(map(_as_input, d.dependencies)) for d in ts.dependents)
    return is_target(True, len(ts.dependents), ts.nbytes, roots_read)


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
                _one_data_input, roots_max=books.roots_max,
                sized=book is not None and sized_by_prefix(book.threads)), _pending)
    return False


def _read_soon(ts) -> bool:
    """Has ts a reader still to run whose other inputs are all done or processing (no
    root of them still to admit)? A running total's first carry (a tiny root added to the
    first block, loaded at once) is so; a groupby indexer whose month cut waits for a chunk
    dask.order loads late is not (Plugin._leads_on)."""
    for d in ts.dependents:  # (TaskState.state's slot read: no property call)
        if d._state in _DONE:
            continue
        for x in d.dependencies:
            if x is not ts and x._state != "memory" and x._state != "processing" \
                    and not _constant(x):  # fmt: skip
                break
        else:
            return True
    return False


def _pending(o) -> bool:
    return o._state not in _DONE  # (TaskState.state's slot: no property call)


# meeting_plan of a task no task reads: it meets nothing (read only, never changed)
_NO_MEETINGS = MeetingPlan(False, (), ())
_DONE = frozenset({"memory", "erred", "released", "forgotten"})


def _on_their_way(ts, depth: int) -> bool:
    """Are ts's inputs all done or running, or waiting only on such tasks (to ``depth``
    levels): nothing of them still to be admitted or placed (policy.awaits_combine)?
    (``._state``: TaskState.state's slot; the property is a Python call, ~28 a task in
    twin anomaly 100x4 at 1,000 steps.)"""
    for x in ts.dependencies:
        state = x._state
        if state == "memory" or state == "processing":
            continue
        if state != "waiting" or depth <= 1 or not _on_their_way(x, depth - 1):
            return False
    return True


def _on_their_way_read(ts, depth: int, read: list) -> bool:
    """_on_their_way, the inputs of each task it walks into appended to ``read`` before
    their states are read (Plugin._combines_of's kept view watches them)."""
    for x in ts.dependencies:
        state = x._state
        if state == "memory" or state == "processing":
            continue
        if state != "waiting" or depth <= 1:
            return False
        read.extend(x.dependencies)
        if not _on_their_way_read(x, depth - 1, read):
            return False
    return True


def _most_held(ts) -> int:
    """The most of ts's inputs done or computed on any one worker (0: none)."""
    held: dict = {}
    for x in ts.dependencies:
        for ws in x.who_has or ():
            held[ws.address] = held.get(ws.address, 0) + 1
        ws = x.processing_on
        if ws is not None:
            held[ws.address] = held.get(ws.address, 0) + 1
    return max(held.values(), default=0)


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
        spec = x.run_spec
        if spec is None or isinstance(spec, DataNode):  # (_constant inlined: per join)
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


def _sole_pull(ts, roots_max):
    """ts's one input large enough to pull its consumer (policy.pulls_consumer: a chunk,
    a month's stack, not an indexer), or None where it has none or several."""
    big = None
    for d in ts.dependencies:
        if d.nbytes > 0 and pulls_consumer(d.nbytes, roots_max):
            if big is not None:
                return None
            big = d
    return big


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


def _of_group(ws, group) -> int:
    """Tasks of ``group`` processing on worker ws or held there."""
    n = 0
    for t in ws.processing:
        if t.group is group:
            n += 1
    for t in ws.has_what:
        if t.group is group:
            n += 1
    return n


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
    states = group.states  # (each attribute read once: 1.5 calls a task, twin anomaly)
    # (subscripts, not get: dask's TaskCollection keeps every task state's count, zeros
    # too, dict.fromkeys(ALL_TASK_STATES, 0), in 2025.4-2026.8; cpu47)
    done = states["memory"] + states["released"] + states["forgotten"]
    if done:
        total = group.nbytes_total
        if total > 0:
            return total / done
    return math.nan


_DONE = frozenset(("memory", "released", "forgotten", "erred"))


def _freed_on(ts, ws) -> float:
    """Bytes of ts's inputs held on worker ws that no task but ts still needs (every other
    dependent done, no client wants them): freed there when ts ends."""
    freed = 0.0
    for d in ts.dependencies:
        if ws in d.who_has and not d.who_wants and all(
                u is ts or u.state in _DONE for u in d.dependents):  # fmt: skip
            freed += d.nbytes
    return freed


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
