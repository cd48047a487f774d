"""The roots a root meets and where they are held (partners, mirrored inputs)."""

from __future__ import annotations

from .roots import MEETING_FANOUT, SHARED_FANOUT, _sized_as_handle
from .spread import MEETING_SPREAD
from .meetings import MeetingPlan, _below, _chain_fast, _top, _top_task, gathers_only, meeting_plan


def meets_further(meetings, dependents, dependencies, fanout: int = MEETING_FANOUT) -> bool:
    """Does the output of one of a root's meetings (``meetings``: :func:`_meetings`')
    meet other data again, in its one dependent with 2 to ``fanout`` inputs (rechunk-add:
    the merge of u's halves is added to v's merge; a tree reduction's combine is combined
    again)? Then the meeting's output is held until that further data is loaded too, so
    a root opening it commits its worker to all the roots it lacks: they count as in
    flight when it asks to start (``books.Books.place``'s ``commits``). A pair whose
    meeting ends the pipeline (vorticity's u and v: their task stores) does not: its
    data is used as soon as the pair is loaded."""
    for m, _ in meetings:
        ds = dependents(m)
        if len(ds) == 1:
            (m2,) = ds
            if 1 < len(dependencies(m2)) <= fanout:
                return True
    return False


def meeting_partners(
    task, dependents, dependencies, where, depth: int = 4, fanout: int = MEETING_FANOUT,
    lacks: set | None = None, shared: dict | None = None, constant=None,
    complete: set | None = None, nbytes=None, spread: list | None = None,
    plan: MeetingPlan | None = None, tops: dict | None = None,
) -> dict:
    """Where the data of root ``task`` meets other data: ``{worker: count}`` of the other
    inputs of the tasks its data meets, held or processing on each worker.

    The walk goes down through single-input chains (open -> read -> select) to the first
    tasks with several inputs, then up each other input's single-input chain to the first
    task held or processing. ``dependents(t)``/``dependencies(t)``: sequences;
    ``where(t)``: the workers holding or computing t (empty when neither). Fan-outs wider
    than ``fanout`` have no single meeting place and are skipped, on the way down and on
    the way up: an input read by many tasks (a grid, broadcast weights, a store handle) is
    copied to every worker that needs it, so where it is held says nothing about where
    this root's data should go (counted, it made every worker holding it a "partner", so
    roots passed the in-flight count and neighbours split). ``depth`` bounds each walk.
    Every single-input branch is followed, also past a meeting found on another branch:
    a load both subtracted from a mean and reduced into it (x - x.mean()) meets its
    neighbours in the mean's first combine; stopping at the subtraction (whose other input,
    the mean, is shared by all) placed neighbours apart and moved 3x the bytes.

    ``lacks``, when given, gets the roots these meetings still lack besides this one: the
    first tasks of the other inputs' chains where none of the chain is held or processing
    and it starts at a root (a task with no inputs, or reading a store handle). A root
    that opens a meeting obliges its worker to load those too before any of the meeting's
    data can be freed (:class:`tidegate.books.Books` reserves them). A set: a root lacked
    by several meetings (rechunk: a load split into three merges) is one root.

    ``shared``, when given, gets ``{worker: count}`` of the partners found through an input
    of a meeting that other tasks read too (up to ``fanout`` of them): part of the scores,
    but data that any worker using it gets a copy of (see :func:`place_root`).

    ``constant(t)``, when given: t is data embedded in the graph (a DataNode), which does
    not keep a task from being a handle (see :func:`_chain`).

    ``complete``, when given, gets the workers where this root "completes a consumer" and
    may pass the in-flight count (:func:`may_admit_root`), one rule for both bodies: a
    partner there that no other task reads (its data waits for this root's), or a meeting
    with every other input there (inputs read by more than ``fanout`` tasks and constants
    aside; at least one counted). A partner that other tasks read too (a grid of a short
    series) is no reason alone: the core counted any partner, so every open of a step
    passed the count on the grid's worker though the step's other read was nowhere; the
    plugin counted only unshared partners, so a stencil's input read by two consumers
    never let its neighbour complete one. (Requiring every meeting complete, also where
    the partner is unshared, moved anomaly's plugin trace at 20x4 1 GB/s: peak 4.75 ->
    4.94 GB, makespan 19.3 -> 20.8 s, bytes moved 20.9 -> 29.5 GB.) But not for a root
    whose data feeds more than ``MEETING_SPREAD`` meetings: a stencil's block waits for its
    9 overlaps, each for 8 other blocks, and a held halo of a neighbour let every root pass
    (twin stencil 20x4: 1.39x queuing's peak; only complete meetings count: 0.72x).
    ``spread``, when given with ``complete``, gets True appended for such a root (see
    :func:`may_load_beside`).

    ``nbytes(t)``, when given: t's known output size (NaN or < 0: unknown), for
    :func:`is_handle`'s test on the way up.

    ``plan``, when given: :func:`meeting_plan` of ``task`` with these ``depth``,
    ``fanout`` and ``constant``, made while the graph was as it is now.

    ``tops``, when given with ``complete``: ``{worker: [tasks]}``, the held or processing
    tasks whose meetings this root completes on each worker of ``complete`` (the first
    found up each other input's chain), each as ``(task, the tasks between it and the
    meeting)``, for :func:`frees_slot`.
    """
    if plan is None:
        plan = meeting_plan(task, dependents, dependencies, depth, fanout, constant)
    scores: dict = {}
    # Spread over many meetings, this root's data waits for all of them (see MEETING_SPREAD).
    spread_ = complete is not None and plan.spread
    if spread_ and spread is not None:
        spread.append(True)
    mine = tops is not None and complete is not None
    for inputs in plan.inputs:
        meet = None  # with complete: the workers holding every other input of m so far
        found_tops = [] if mine else None  # (tops: the held tasks of m's other inputs)
        for chain_tops, end, handle, inner, others, bar in inputs:
            if inner is None:  # (_top inlined: the chains of nearly every graph)
                held, r = (), end
                for c in chain_tops:
                    found = where(c)
                    if found:
                        held, r = found, None
                        break
                else:
                    if handle is not None and _sized_as_handle(handle, nbytes):
                        r = chain_tops[-1]
            else:
                held, r = _top(chain_tops, end, handle, inner, where, nbytes)
                if mine and held:
                    c = _top_task(chain_tops, inner, where, nbytes)
            if r is task:
                continue  # t's chain starts at this root: no other data
            if mine and held:
                top = _below(chain_tops, c)
            if held:  # (then r is None)
                if others == 2 and _sized_as_handle(chain_tops[0], nbytes):
                    pass  # a handle, copied to every worker reading it: no partner
                else:
                    for w in held:
                        scores[w] = scores.get(w, 0) + 1
                    if others and shared is not None:  # read by others too
                        for w in held:
                            shared[w] = shared.get(w, 0) + 1
                if not others and not spread_ and complete is not None:
                    complete.update(held)  # data that waits for this root's alone
                    if mine:
                        for w in held:
                            tops.setdefault(w, []).append(top)
                if mine and bar:
                    found_tops.append((top, held))
            elif r is not None and lacks is not None:
                lacks.add(r)
            # Once no worker holds every input so far, m completes nowhere: no more tests.
            # Inputs read by more than fanout tasks (copied wherever used) and constants
            # (embedded data) are no bar.
            if bar and complete is not None and (meet is None or meet):
                meet = set(held) if meet is None else meet.intersection(held)
        if meet:
            complete.update(meet)
            if mine:
                for top, held in found_tops:
                    for w in held:
                        if w in meet:
                            tops.setdefault(w, []).append(top)
    return scores


def partners_on_one(task, entries, w, where, nbytes=None):
    """:func:`meeting_partners`' walk of ``entries`` (a plan's inputs' entries, every
    meeting's together) when its answer is worker ``w`` alone: ``(count, lacks, tops)``, the
    partners' count on w, the roots lacked (their tasks) and the tops completing there
    (``meeting_partners``' ``tops[w]``, in another order, found again where two meetings
    complete); None when an input is read by other tasks (``shared``), has a handle read
    by 8-16 tasks inside its chain (``_top``'s case), is held or processing on another
    worker than w, or none is found on w. With no input shared or found elsewhere,
    ``meeting_partners`` gives ``{w: count}``, ``complete`` {w} (an unshared input found
    there: its data waits for task's alone), no ``shared`` and these lacks and tops (each
    found input's top; a complete meeting's adds the same again). Read by a root's meetings
    whose other inputs are on its opener's worker or nowhere: a tree reduction's group of
    4 (anomaly), a pair's second root (rechunk-add's a-side)."""
    lacks: set = set()
    tops: list = []
    count = 0
    for chain_tops, end, handle, inner, others, _ in entries:
        if inner is not None or others:
            return None
        for i, held in enumerate(map(where, chain_tops)):
            if held:
                break
        else:
            r = chain_tops[-1] if handle is not None and _sized_as_handle(handle, nbytes) \
                else end  # fmt: skip
            if r is not None and r is not task:
                lacks.add(r)
            continue
        if len(held) != 1 or held[0] != w:
            return None
        count += 1
        tops.append((chain_tops[i], chain_tops[:i]))  # (_below's, without its search)
    if not count:
        return None
    return count, lacks, tops


def mirrored_inputs(plan: MeetingPlan, dependents, dependencies,
                    fanout: int = MEETING_FANOUT, constant=None,
                    chains: dict | None = None, depth: int = 4) -> tuple | None:
    """The entries of the plans of the roots an opener's ``plan`` lacks, as the opener's
    plan mirrors them: ``(meeting, {id(t): (t, entries, input)})`` for each task t of the
    chains of the one ``meeting`` of ``plan`` with entries (its other meetings read only
    inputs read by many): that meeting's entries but the one of t's chain (from
    ``input``, an input of the meeting), with the opener's own input's chain (its ``via``)
    instead; a task of two chains: ``(t, None, None)``. None when plan is not of that form
    (or ``deep``: its chains are walked deeper than a sibling's). A root's plan is that
    when it and the opener meet in that meeting alone and its other meetings read only
    inputs read by many, as the opener's do (a tree reduction's group of 4: anomaly's
    loads, each also subtracted from the mean): :func:`mirror_holds` checks it from the
    root's own meetings. Cost: once per opener, its lacked roots then read it.

    Walked in one pass (session 41, cpu41; session 40's walk is tests/plan_reference.py's,
    the reference test_mirror_fast compares): the opener's own chain walked by
    :func:`_chain_fast`, kept chains read in place (``_chain_of`` without its call), each
    entry's first task read once."""
    if plan.deep:
        return None
    ins = via = meeting = None
    inputs = iter(plan.inputs)
    for m, v in plan.meetings:
        if len(dependencies(m)) > fanout:
            continue  # (no entry: _meeting_plan's skip)
        entries = next(inputs)
        if not entries:
            continue
        if ins is not None:
            return None
        ins, via, meeting = entries, v, m
    if ins is None:
        return None
    n = len(dependents(via))
    if n > fanout:
        return None
    kept = None if chains is None else chains.get(id(via))
    if kept is not None and kept[0] is via:
        own = kept[1]
    else:
        own = _chain_fast(via, dependents, dependencies, depth, fanout, constant)
        if chains is not None:
            chains[id(via)] = (via, own)
    own = (*own, n > 1, constant is None or not constant(via))
    out: dict = {}
    for i, e in enumerate(ins):
        rest = ins[:i] + ins[i + 1:] + (own,)
        tops = e[0]
        top = tops[0]
        for c in tops:
            k = id(c)
            out[k] = (c, None, None) if k in out else (c, rest, top)
    return meeting, out


def mirror_holds(task, meeting, via, dependents, dependencies, depth: int = 4,
                 fanout: int = MEETING_FANOUT, group=None,
                 unique: bool = False) -> tuple | None:
    """Is root ``task``'s own :func:`meeting_plan` (``depth``, ``fanout``, ``group`` as
    the body asks it) its opener's mirrored (:func:`mirrored_inputs`: ``meeting``, where
    task's chain comes in through ``via``)? ``(further, widest)`` of task's own plan
    (:attr:`MeetingPlan.further`, its widest meeting's inputs) when it is, and the plan is
    none of the rarer kinds (spread, wide, gather, deep); else None. A proof from task's
    own meetings (:func:`_meetings`), without its chains: its plan's entries are those of
    its meetings with at most ``fanout`` inputs, each input but its ``via`` read by at
    most ``fanout`` tasks giving one; so they are the mirror's when ``(meeting, via)`` is
    one of its meetings and every other gives none (each input read by more, a mean, or
    its ``via``): then ``meeting``'s entries are the chains of its inputs but ``via``,
    which is what the mirror lists (the opener's entries, ``via``'s chain out, the
    opener's own in), as a multiset (partners_on_one's answer is order-free). Not deep:
    the opener's own chain is an entry without task (else task came into ``meeting``
    twice, found below). Not wide: ``meeting`` has at most ``fanout`` inputs. Asked of a
    root read by fewer than ``SHARED_FANOUT`` tasks only (a handle's plan is the body's
    to make). Cost: the walk down to task's meetings and one look at each input of its
    other meetings, no chain (twin anomaly: about a third of the plan's).

    Walked in one pass (session 41, cpu41; session 40's walk is tests/plan_reference.py's):
    the walk to task's meetings (:func:`_meetings`, inline) tests each meeting as it is
    found (an unlisted entry ends it at once) and answers :func:`meets_further` on the way
    (each meeting's dependents read once, until one meets further); :func:`gathers_only`
    asked only when no meeting has a dependent (else it is False). ``unique``: as
    :func:`meeting_plan`'s (an input compared with its via by identity alone)."""
    if len(dependents(task)) >= SHARED_FANOUT:
        return None
    meets: list = []
    found = further = dependent = False
    inputs = widest = 0
    frontier = [task]
    for _ in range(depth):
        nxt = []
        for t in frontier:
            ds = dependents(t)
            if len(ds) > fanout:
                continue
            for d in ds:
                ins = dependencies(d)
                n = len(ins)
                if n <= 1:
                    nxt.append(d)
                    continue
                meets.append((d, t))
                if not further:
                    after = dependents(d)
                    if after:
                        dependent = True
                        if len(after) == 1:
                            (m2,) = after
                            if 1 < len(dependencies(m2)) <= fanout:
                                further = True
                if n > widest:
                    widest = n
                if n > fanout:
                    continue  # (no entry)
                inputs += 1
                if d is meeting and t is via:
                    found = True
                    continue
                if unique:
                    for u in ins:
                        if u is not t and len(dependents(u)) <= fanout:
                            return None  # an entry the mirror does not list
                else:
                    for u in ins:
                        if not (u is t or u == t) and len(dependents(u)) <= fanout:
                            return None
        if not nxt:
            break
        frontier = nxt
    if not found or inputs > MEETING_SPREAD:
        return None
    if not dependent and gathers_only(meets, dependents, dependencies, group):
        return None
    return further, widest
