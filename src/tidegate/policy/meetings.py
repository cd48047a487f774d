"""Where a root's data meets other data: the graph walks (meeting plans, chains, halos,
waits for a root's own reduction)."""

from __future__ import annotations

from typing import NamedTuple

from .roots import (
    CONSTANT_HANDLES, HANDLES_NO_PARTNERS, MEETING_FANOUT, SHARED_FANOUT, _no_data,
    _sized_as_handle,
)
from .spread import MEETING_SPREAD


class MeetingPlan(NamedTuple):
    """The structural part of :func:`meeting_partners`' walk from one root: what the
    graph's dependents and dependencies say, nothing of where tasks are held.

    ``spread``: the root's data feeds more than ``MEETING_SPREAD`` meetings. ``inputs``:
    per meeting with at most ``fanout`` inputs, for each of its other inputs
    ``(tops, end, handle, inner, others, bar)``: its chain (:func:`_chain`), read by
    other tasks too (``shared``), and a bar to completing the meeting elsewhere (read by
    at most ``fanout`` tasks and not a constant). ``meetings``: :func:`_meetings`'.
    ``further``: a meeting's output meets other data again in one task (see
    :func:`meets_further`). ``wide``: the root's one meeting when it has more than
    ``fanout`` inputs (see :func:`joins_started_fan_in`), else None. ``pair``: a
    meeting's output is combined, in its one dependent, with one other input of another
    task group (``group(t)``): two arrays side by side (rechunk-add: the merge of u's pieces
    added to v's merge), not a level of a tree reduction, whose inputs are partials of one
    group (anomaly's mean, whatever their count). Then :func:`passes_for_further` applies
    to the roots of the second side. Applied to a tree reduction too, a group of 4 loads
    whose next level had its other partials waited for a worker with no root processing:
    twin anomaly 20x4, 200 steps, 0.82 -> 0.86x queuing's peak (every 4-way level); 1,000
    steps, only the tree's remainder (two partials, 2 of 250), 60 -> 76 GB moved and 0.786
    -> 0.814x queuing's time. (Session 39's ``joins_two_sides``, found now in
    :func:`_meeting_plan_fast`'s pass.) ``gather``: every meeting is a final gather of one
    collection's pieces (see :func:`gathers_only`)."""

    spread: bool
    inputs: tuple
    meetings: list
    further: bool = False
    wide: object = None
    pair: bool = False
    deep: bool = False
    gather: bool = False


def gathers_only(meetings, dependents, dependencies, group) -> bool:
    """Does a root's data meet other data only in final gathers: tasks with no dependents
    that join pieces of one collection (every input of one task group, ``group(t)``):
    ``finalize-...`` of ``Client.compute`` reading every output chunk; of a ``da.store``,
    every per-chunk store's ``None``? Then its partners there rank the workers it may go
    to but are no reason to wait for their busy workers (``books.Books.place``'s
    ``gather``): co-located or not, all of a gather's inputs are held on its one worker in
    the end, so co-locating them saves no memory, only the copies into that task, while
    waiting for the partners' worker runs them on its threads alone. A final task of two
    collections (``a + b`` kept as the output, without a finalize: twin sim fingerprints
    slice-add, vorticity moved) or of two inputs (a pair's combine computed as one of a
    list of outputs: tests/test_plugin_safety.py's blocked pairs, whose second roots wait
    for their partner's worker) is no gather: there co-locating the loads saves copying
    one. Why: twin seed weighted (12 stores
    reading two 8 MB grids, ~120 ms each, meeting in the finalize), 2 x 2: once the first
    stores went to w1 every other store's partners were there; they waited for w1 while w0
    ran one store on one of its two threads (bench/results/wall29-findings.txt). Without
    ``group`` (a body that gives none): False."""
    if not meetings or group is None:
        return False
    for m, _ in meetings:
        if dependents(m):
            return False
        ins = dependencies(m)
        if len(ins) <= 2:
            return False  # a pair's combine kept as an output: a meeting, no gather
        first = None
        for d in ins:
            g = group(d)
            if first is None:
                first = g
            elif g is not first and g != first:
                return False
    return True


# How far meeting_plan walks (its ``halo_depth``) from a root whose meetings within its
# depth combine only its own data (see :func:`meeting_plan`).
HALO_DEPTH = 8


def halo_depth(threads: int, workers: int) -> int | None:
    """:func:`meeting_plan`'s ``halo_depth`` on a cluster of ``workers`` workers with
    ``threads`` threads in all: ``HALO_DEPTH`` where workers have more than one thread on
    average, else None (the walk stops at depth). A one-thread worker has no thread to
    load the next chunk on beside the running one: there the deep plan only moved where
    chunks go, and its spread (9 overlap sums: ``may_load_beside``) loaded them past the
    count: twin of tests/test_probe25.py's rolling mean (5 namings) 2x1 peak 0.85 ->
    1.09x queuing's, 4x1 0.96 -> 1.26x; without the spread, 1.053 -> 1.072x and 0.97 ->
    1.02x queuing's time (bench/results/halo26-findings.txt)."""
    return HALO_DEPTH if threads > workers else None


def meeting_plan(task, dependents, dependencies, depth: int = 4,
                 fanout: int = MEETING_FANOUT, constant=None,
                 chains: dict | None = None, group=None,
                 halo_depth: int | None = None, unique: bool = False) -> MeetingPlan:
    """:class:`MeetingPlan` of root ``task`` (arguments as :func:`meeting_partners`).

    It holds while the graph's tasks and edges do: a body may keep it for a root until a
    graph is added or a task forgotten. Why: a queued root is placed about twice and each
    placement walked its meetings again (twin anomaly 100x4: a fifth of the plugin's
    bytecodes); only ``where`` (and sizes, for handles) changes meanwhile. ``chains``,
    when given, keeps the chains walked, ``{id(t): (t, chain)}``, under the same terms:
    the roots meeting in one task walk each other's chains (a tree reduction's combine of
    4 loads: each chain walked for 3 roots). ``group(t)``, when given: t's task group (the
    collection it belongs to), for :attr:`MeetingPlan.pair`; without it ``pair`` is
    False.

    ``halo_depth``, when given: where every meeting within ``depth`` combines only this
    root's own data (xarray's rolling mean masks each chunk, ``where(~isnan(u), u, 0)``, a
    task of u and invert(u)), the walk goes on to ``halo_depth`` (fresh chains, not
    ``chains``', which are walked to ``depth``): the chunk meets its neighbour's halo 6
    steps down (invert -> concatenate -> rechunk-split -> rechunk-merge -> getitem ->
    overlap sum). Such a plan is ``deep``: where it completes a meeting, a root passes
    the in-flight count only as :func:`passes_for_halo` says. Why: never seen to meet its
    neighbours, each chunk was placed by load alone (2 x 2: alternate chunks on alternate
    workers, every halo crossing) and waited for a slot while its neighbour's data waited
    for it: twin of probe24's rolling-max (bench/probe25_twin.py) 2 x 2 1.15-1.26x
    queuing's time (bench/results/halo26-findings.txt).

    ``unique``: distinct task objects are distinct tasks (dask's TaskStates, one per key
    in a scheduler: a task is compared by identity alone, without ``==``). The plan is
    walked by :func:`_meeting_plan_fast`."""
    plan = _meeting_plan_fast(task, dependents, dependencies, depth, fanout, constant,
                              chains, group, unique)
    if halo_depth is None or halo_depth <= depth or not plan.inputs or plan.wide is not None:
        return plan
    own = 0
    for inputs in plan.inputs:
        for entry in inputs:
            for c in entry[0]:  # (identity, as meeting_partners' ``r is task``)
                if c is task:
                    break
            else:
                return plan  # a meeting with other data within depth: as it was
            own += 1
    if not own:
        return plan  # (meetings with inputs read by many only: a grid, weights)
    deep = _meeting_plan_fast(task, dependents, dependencies, halo_depth, fanout, constant,
                              None, group, unique)
    for inputs in deep.inputs:
        for entry in inputs:
            for c in entry[0]:
                if c is task:
                    break
            else:
                return deep._replace(deep=True)
    return plan


_tuple_new = tuple.__new__


def _meeting_plan_fast(task, dependents, dependencies, depth, fanout, constant, chains,
                       group, unique) -> MeetingPlan:
    """:func:`meeting_plan` at one depth, in one pass over the meetings: ``further``,
    ``pair`` and ``gather`` (:func:`meets_further`; two groups joined, see
    :attr:`MeetingPlan.pair`; :func:`gathers_only`: each asks whether some meeting's one
    dependent reads 2 to ``fanout`` inputs, or whether none has a dependent) found on the
    pass that lists their inputs, each meeting's dependents read once, each group once;
    the kept chains read in place (``_chain_of``'s look-up without its call); with
    ``unique``, a meeting's input compared with its ``via`` by identity alone. Why:
    rechunk-add's plans are one walk per root, no part of it shared with another root's
    (each chain is walked once and read once more, each meeting's other input is one
    root's entry: nothing to share between roots of one shape), so only a walk with fewer
    steps costs less (cpu40b-findings.txt: 0.70-0.96x session 39's walk's time a call;
    that walk is tests/plan_reference.py, the reference tests/test_plan_fast.py compares
    every plan with)."""
    meetings = _meetings(task, dependents, dependencies, depth, fanout)
    inputs = []
    further = pair = False
    leaves = group is not None  # (every meeting without a dependent so far: a gather?)
    for m, via in meetings:
        ds = dependents(m)
        if ds:
            leaves = False
            if len(ds) == 1:
                (m2,) = ds
                ins2 = dependencies(m2)
                n2 = len(ins2)
                if 1 < n2 <= fanout:
                    further = True
                if n2 == 2 and not pair and group is not None:
                    a, b = ins2
                    ga = group(a)
                    gb = group(b)
                    if ga is not gb and ga != gb:
                        pair = True
        ins = dependencies(m)
        if len(ins) > fanout:
            continue
        plans = []
        for t in ins:
            # Identity first: a dask TaskState's == is a Python call (by key); the same
            # object is the same task for every task type used here.
            if t is via or (not unique and t == via):
                continue
            n = len(dependents(t))
            if n > fanout:
                continue  # (a chain of no task: no score, no root, no bar; a mean, a grid)
            if chains is None:
                chain = _chain_fast(t, dependents, dependencies, depth, fanout, constant)
            else:
                kept = chains.get(id(t))
                if kept is not None and kept[0] is t:
                    chain = kept[1]
                else:
                    chain = _chain_fast(t, dependents, dependencies, depth, fanout, constant)
                    chains[id(t)] = (t, chain)
            # (2: a handle by structure, read by SHARED_FANOUT or more without data inputs:
            # no partner while its size says so, see HANDLES_NO_PARTNERS)
            shared = n > 1
            if n >= SHARED_FANOUT and HANDLES_NO_PARTNERS and _no_data(t, dependencies,
                                                                     constant):
                shared = 2
            plans.append(chain + (shared, not (constant is not None and constant(t))))
        inputs.append(tuple(plans))
    wide = None
    # (read directly only: through a chain, a reduce of each load, withholding the root
    # keeps one load per thread in memory instead of all; review22, twin 2x4: 90 MB/worker)
    if len(meetings) == 1 and len(dependencies(meetings[0][0])) > fanout \
            and (meetings[0][1] is task or meetings[0][1] == task):  # fmt: skip
        wide = meetings[0][0]
    # (the named tuple made without its Python __new__: every field given, in order)
    return _tuple_new(MeetingPlan, (
        len(inputs) > MEETING_SPREAD, tuple(inputs), meetings, further, wide, pair, False,
        leaves and bool(meetings) and gathers_only(meetings, dependents, dependencies,
                                                   group)))  # fmt: skip


def joins_started_fan_in(task, plan: MeetingPlan, dependencies, where) -> bool:
    """Does root ``task``'s data go to one task only, which reads more than ``fanout``
    inputs (``plan.wide``: a ``delayed(sum)`` of 40 loads, a concatenation), another of
    them held or processing already? Then every one of them is held before it runs,
    whatever the order: withholding ``task`` saves no memory, only threads. Such a root
    may pass the in-flight count like one completing a consumer (``may_admit_root``), in
    both bodies. Past the count only the idle rule admitted, one root whenever a worker
    had nothing to run: 40 loads of 0.2 s on 4 threads took tidegate.get 7.43 s against
    threaded's 2.01, a 2 x 2 LocalCluster 3.86 s against queuing's 2.04-2.20. (Narrower
    fan-ins are meetings: their held inputs are ``complete`` partners.) Cost: inputs
    looked at until one is found: a first root's question reads them all, later ones
    stop at one placed before (n log n in all where the order is random, as dask's sets)."""
    wide = plan.wide
    if wide is None:
        return False
    for d in dependencies(wide):
        if where(d) and not (d is task or d == task):  # (task itself is not placed yet)
            return True
    return False


def waits_for_own_reduction(task, dependents, dependencies, depth: int = 6,
                            chains: dict | None = None):
    """Is root ``task``'s data read again beside a value reduced from it (``a -
    a.mean(axis=0)``: a load's chunk-mean goes up a tree reduction into the mean, and the
    load waits for that mean)? Then it stays where it was loaded until the reduction is
    whole, wherever its reduction's meetings complete: co-locating it with its meeting's
    partners saves only the transfer of what its reduction's first task makes of it.
    Returns that first task (the chunk-mean), or None. Found by following, from each
    other dependent of ``task``, the tasks with one dependent (the reduction's path) for
    at most ``depth`` steps. Cost: few meetings, a few steps per pair; many (a grid read by
    1,000 tasks: 10^6 steps when every pair was tried), each path once with the dependents
    of each task on it.

    ``chains``, when given (a body's kept chains, :func:`_chain_of`'s), keeps the steps of
    each path past its first two, u (c's one dependent) then v (u's): under ``(id(u),
    depth)``, ``(u, frozenset of v and the tasks up to depth - 2 steps on from v)``, on the
    chains' terms (they hold while the graph does); u is tested as the walk tests it, and
    nothing is kept for a path ending at u (a running total's: each asked once). The roots
    of a tree reduction's group reach one combine first (anomaly: a group's 4 chunk-means,
    one combine), then walk the same path: each path is walked once, and tested against
    d's inputs in C (``isdisjoint``, by the hashes the sets hold). The same answer: c's
    path is u, v and v's next depth - 2 steps, the walk's; ``t is not d`` holds of every t
    in d's inputs (a task is no input of its own), so it adds nothing to ``t in ins``."""
    deps = dependents(task)
    if len(deps) < 2:
        return None
    meets = [d for d in deps if len(dependencies(d)) >= 2]
    if not meets:
        return None
    if len(meets) <= 8 and chains is not None and depth > 0:  # (below's, its paths kept)
        for d in meets:
            ins = dependencies(d)
            for c in deps:
                if c is d:
                    continue
                up = dependents(c)
                if len(up) != 1:
                    continue
                (u,) = up  # (the first step, as below)
                if u in ins:
                    return c
                up = dependents(u)
                if len(up) != 1 or depth < 2:
                    continue  # (the walk ends at u: nothing to keep)
                kept = chains.get((id(u), depth))
                if kept is None or kept[0] is not u:
                    (v,) = up
                    kept = chains[(id(u), depth)] = (u, _path_up(v, dependents, depth - 2))
                if not kept[1].isdisjoint(ins):
                    return c
        return None
    if len(meets) <= 8:  # few meetings (a load, its chunk-mean and a - mean): pair them
        for d in meets:
            ins = dependencies(d)
            for c in deps:
                if c is d:
                    continue
                t = c
                for _ in range(depth):
                    up = dependents(t)
                    if len(up) != 1:
                        break
                    (t,) = up
                    if t is not d and t in ins:
                        return c
        return None
    meets = set(meets)  # many (a grid read by every task): each path once
    first = {}  # d -> the first c (in deps' order) whose path reaches an input of d
    for c in deps:
        t = c
        for _ in range(depth):
            up = dependents(t)
            if len(up) != 1:
                break
            (t,) = up
            for d in dependents(t):
                if d in meets and d is not c and d is not t and d not in first \
                        and t in dependencies(d):  # fmt: skip
                    first[d] = c
    for d in deps:  # the answer the pairwise search gave: the first d, then its first c
        if d in first:
            return first[d]
    return None


def _path_up(u, dependents, steps: int) -> frozenset:
    """u and the tasks up to ``steps`` steps on from it along single dependents
    (:func:`waits_for_own_reduction`'s path past its first step: u its second)."""
    path = [u]
    t = u
    for _ in range(steps):
        up = dependents(t)
        if len(up) != 1:
            break
        (t,) = up
        path.append(t)
    return frozenset(path)


def _meetings(task, dependents, dependencies, depth, fanout) -> list:
    """``[(meeting, via)]``: the first tasks with several inputs down each single-input
    branch from ``task``."""
    meets = []
    frontier = [task]
    for _ in range(depth):
        nxt = []
        for t in frontier:
            ds = dependents(t)
            if len(ds) > fanout:
                continue
            for d in ds:
                if len(dependencies(d)) > 1:
                    meets.append((d, t))
                else:
                    nxt.append(d)
        if not nxt:
            break
        frontier = nxt
    return meets


def _count(found, scores) -> bool:
    """Add one to each worker in ``found`` (where a task is held or processing)."""
    for w in found:
        scores[w] = scores.get(w, 0) + 1
    return bool(found)


def _chain_of(t, dependents, dependencies, depth, fanout, constant, chains) -> tuple:
    """:func:`_chain` of t, from ``chains`` (``{id(t): (t, chain)}``, or None) if kept
    there, else walked (and kept)."""
    kept = None if chains is None else chains.get(id(t))
    if kept is not None and kept[0] is t:
        return kept[1]
    chain = _chain(t, dependents, dependencies, depth, fanout, constant)
    if chains is not None:
        chains[id(t)] = (t, chain)
    return chain


def _chain(t, dependents, dependencies, depth, fanout, constant=None) -> tuple:
    """The structural part of a walk up t's single-input chain (:func:`_top` is the live
    part, where its tasks are now): ``(tops, end, handle, inner)``.

    ``tops``: t's single-input chain upwards, the tasks whose workers count if one is
    held or processing, in order; ``end``: the root when none is (a task with no inputs),
    or None (a task with several inputs, a fan-out wider than ``fanout``, ``depth`` steps
    without either). Handles to test by their size (:func:`_sized_as_handle`), each a
    task read by ``SHARED_FANOUT`` or more without data inputs: then the task reading it
    is the root. ``handle``: the task past the last of ``tops`` (read by more than
    ``fanout``), or None; ``inner``: None, or the indices i where ``tops[i]`` is one,
    tested before its workers (rare: a store read by 8-16 loads)."""
    tops: list = []
    inner = handle = None
    end = None
    first = 0
    for step in range(depth):
        n = len(dependents(t))
        if not step:
            first = n
        if step and n >= SHARED_FANOUT and _no_data(t, dependencies, constant):
            # A handle (a store read by 8-16 loads: a short series), so the task below is
            # a root: where the handle is held says nothing. Counted, every load had the
            # handle's worker as partner: the zarr anomaly at 2x1 (12 chunks) ran every
            # load on one worker (twin: peak 608 MB against queuing's 416).
            if n > fanout:
                handle = t
            else:
                inner = (inner or ()) + (len(tops),)
        if n > fanout:  # shared by many: no meeting place
            break
        tops.append(t)
        ins = dependencies(t)
        if len(ins) != 1:
            end = None if ins else t
            if not ins and step and n < SHARED_FANOUT and _constant_handle(
                    t, constant, first if step > 1 else 1):
                inner = (inner or ()) + (len(tops) - 1,)
            break
        (t,) = ins  # its one input, whatever the sequence type (one unpack, no calls)
    return tuple(tops), end, handle, inner


def _chain_fast(t, dependents, dependencies, depth, fanout, constant=None) -> tuple:
    """:func:`_chain`'s chain in fewer steps (the plans' walks): its first step, where no
    task is a handle (a handle is read past the first), taken before the loop; a handle
    ends the walk at once (past it, ``n > fanout`` ended it: the same chain);
    :func:`_no_data` inline, its inputs read once for both."""
    first = len(dependents(t))
    if depth <= 0 or first > fanout:
        return (), None, None, None
    ins = dependencies(t)
    if len(ins) != 1:
        return (t,), None if ins else t, None, None
    tops = [t]
    (t,) = ins
    inner = handle = end = None
    for _ in range(depth - 1):
        n = len(dependents(t))
        if n >= SHARED_FANOUT:
            ins = dependencies(t)
            if not ins or (constant is not None and all(map(constant, ins))):  # (_no_data)
                if n > fanout:
                    handle = t
                    break
                inner = (inner or ()) + (len(tops),)
            elif n > fanout:
                break
        elif n > fanout:
            break
        else:
            ins = dependencies(t)
        tops.append(t)
        if len(ins) != 1:
            end = None if ins else t
            if not ins and n < SHARED_FANOUT and _constant_handle(
                    t, constant, first if len(tops) > 2 else 1):
                inner = (inner or ()) + (len(tops) - 1,)
            break
        (t,) = ins
    return tuple(tops), end, handle, inner


def _constant_handle(t, constant, first: int = 1) -> bool:
    """Does a chain's top t, a task with no inputs read by fewer than SHARED_FANOUT
    tasks, end the chain below it (``CONSTANT_HANDLES``): is it a constant, whose readers
    are roots? ``first``: the readers of the chain's first task where t is two or more
    steps above it, else 1 (bit 4: not past a shared first task). Its size is tested
    where the chain is read (:func:`_top`, as an inner handle's). Asked once per chain,
    at its end."""
    if CONSTANT_HANDLES & 4 and first > 1:
        return False
    return bool(CONSTANT_HANDLES & 1) and constant is not None and bool(constant(t))


def _top(tops, end, handle, inner, where, nbytes) -> tuple:
    """Up a chain (:func:`_chain`) to the first task held or processing: ``(its workers,
    None)``. When none is: ``((), root)`` if the chain starts at a root (a task with no
    inputs, or whose one input is a handle, :func:`is_handle`), still to be placed; else
    ``((), None)``."""
    for i, t in enumerate(tops):
        if inner is not None and i in inner and _sized_as_handle(t, nbytes):
            return (), tops[i - 1]
        held = where(t)
        if held:
            return held, None
    if handle is not None and _sized_as_handle(handle, nbytes):
        return (), tops[-1]
    return (), end


def _top_task(tops, inner, where, nbytes):
    """The task :func:`_top` found held or processing (it found one): for
    :func:`meeting_partners`' ``tops``."""
    for i, t in enumerate(tops):
        if inner is not None and i in inner and _sized_as_handle(t, nbytes):
            return None
        if where(t):
            return t
    return None


def _below(chain_tops, c):
    """``(c, the tasks of its chain between it and the meeting)``: ``chain_tops`` lists
    a chain from the meeting's input up (:func:`meeting_partners`' ``tops``)."""
    for i, t in enumerate(chain_tops):
        if t is c:
            return c, tuple(chain_tops[:i])
    return None, ()
