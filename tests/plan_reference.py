"""The plans' walks as session 39 wrote them (before cpu40b's fast forms): the reference
tests/test_plan_fast.py compares policy's plans with, kept here rather than in src/ (moved
out of policy.py by tidy41, session 41, with its ``PLAN_FAST`` switch; the code unchanged
but for its names). Frozen on purpose: :func:`_chain` is a copy of policy._chain as it was,
so a later change to src's walks is still compared with these.

``meeting_plan`` / ``further_plan`` take policy's arguments; what the old walks shared with
the fast ones unchanged (policy._meetings, _no_data, meets_further, gathers_only,
_further_inputs, MeetingPlan, the thresholds) is read from policy."""

from __future__ import annotations

from tidegate import policy
from tidegate.policy import (MEETING_FANOUT, MEETING_SPREAD, SHARED_FANOUT, MeetingPlan,
                             _meetings, gathers_only, meets_further)


def meeting_plan(task, dependents, dependencies, depth: int = 4,
                 fanout: int = MEETING_FANOUT, constant=None,
                 chains: dict | None = None, group=None,
                 halo_depth: int | None = None, unique: bool = False) -> MeetingPlan:
    """policy.meeting_plan with ``PLAN_FAST`` False (``unique`` unused: the old walk
    compared with ``==`` after identity)."""
    plan = _meeting_plan(task, dependents, dependencies, depth, fanout, constant, chains,
                         group)
    if halo_depth is None or halo_depth <= depth or not plan.inputs or plan.wide is not None:
        return plan
    own = 0
    for inputs in plan.inputs:
        for entry in inputs:
            for c in entry[0]:
                if c is task:
                    break
            else:
                return plan
            own += 1
    if not own:
        return plan
    deep = _meeting_plan(task, dependents, dependencies, halo_depth, fanout, constant, None,
                         group)
    for inputs in deep.inputs:
        for entry in inputs:
            for c in entry[0]:
                if c is task:
                    break
            else:
                return deep._replace(deep=True)
    return plan


def _meeting_plan(task, dependents, dependencies, depth, fanout, constant, chains,
                  group) -> MeetingPlan:
    """meeting_plan at one depth."""
    meetings = policy._meetings(task, dependents, dependencies, depth, fanout)
    inputs = []
    for m, via in meetings:
        ins = dependencies(m)
        if len(ins) > fanout:
            continue
        plans = []
        for t in ins:
            if t is via or t == via:
                continue
            n = len(dependents(t))
            if n > fanout:
                continue
            chain = _chain_of(t, dependents, dependencies, depth, fanout, constant, chains)
            shared = n > 1
            if n >= policy.SHARED_FANOUT and policy.HANDLES_NO_PARTNERS \
                    and policy._no_data(t, dependencies, constant):  # fmt: skip
                shared = 2
            plans.append(chain + (shared, not (constant is not None and constant(t))))
        inputs.append(tuple(plans))
    wide = None
    if len(meetings) == 1 and len(dependencies(meetings[0][0])) > fanout \
            and (meetings[0][1] is task or meetings[0][1] == task):  # fmt: skip
        wide = meetings[0][0]
    return MeetingPlan(len(inputs) > policy.MEETING_SPREAD, tuple(inputs), meetings,
                       policy.meets_further(meetings, dependents, dependencies, fanout), wide,
                       group is not None and joins_two_sides(meetings, dependents,
                                                             dependencies, group),
                       gather=policy.gathers_only(meetings, dependents, dependencies, group))


def joins_two_sides(meetings, dependents, dependencies, group) -> bool:
    """MeetingPlan.pair as policy.joins_two_sides answered it (now found in
    policy._meeting_plan_fast's pass over the meetings)."""
    for m, _ in meetings:
        ds = dependents(m)
        if len(ds) == 1:
            (m2,) = ds
            ins = dependencies(m2)
            if len(ins) == 2:
                a, b = ins
                if group(a) is not group(b) and group(a) != group(b):
                    return True
    return False


def further_plan(meetings, dependents, dependencies, depth: int = 4,
                 fanout: int = MEETING_FANOUT, constant=None, chains: dict | None = None,
                 unique: bool = False) -> tuple:
    """policy.further_plan with ``PLAN_FAST`` False."""
    if chains is None:
        return tuple(_further_entry(t, dependents, dependencies, depth, fanout, constant,
                                    None)
                     for t in policy._further_inputs(meetings, dependents, dependencies,
                                                     fanout))
    out = []
    for m, _ in meetings:
        ds = dependents(m)
        if len(ds) != 1:
            continue
        (m2,) = ds
        inputs = dependencies(m2)
        if not 1 < len(inputs) <= fanout:
            continue
        part = chains.get(-id(m2))
        if part is None or part[0] is not m2:
            part = chains[-id(m2)] = (m2, tuple(
                (t, _further_entry(t, dependents, dependencies, depth, fanout, constant,
                                   chains)) for t in inputs))  # fmt: skip
        for t, entry in part[1]:
            if not (t is m or t == m):
                out.append(entry)
    return tuple(out)


def _further_entry(t, dependents, dependencies, depth, fanout, constant, chains):
    if len(dependents(t)) > fanout:
        return None
    ins = dependencies(t)
    return (t, tuple(_chain_of(u, dependents, dependencies, depth, fanout, constant, chains)
                     for u in ins) if len(ins) <= fanout else ())


def _chain_of(t, dependents, dependencies, depth, fanout, constant, chains) -> tuple:
    kept = None if chains is None else chains.get(id(t))
    if kept is not None and kept[0] is t:
        return kept[1]
    chain = _chain(t, dependents, dependencies, depth, fanout, constant)
    if chains is not None:
        chains[id(t)] = (t, chain)
    return chain


def _chain(t, dependents, dependencies, depth, fanout, constant=None) -> tuple:
    """policy._chain as session 39 wrote it: ``(tops, end, handle, inner)``; with session
    45's rule added (policy.CONSTANT_HANDLES, read from policy: a constant read by fewer
    than SHARED_FANOUT at a chain's end is an inner handle), a rule, not a faster walk."""
    tops: list = []
    inner = handle = None
    end = None
    for step in range(depth):
        n = len(dependents(t))
        if step and n >= policy.SHARED_FANOUT and policy._no_data(t, dependencies, constant):
            if n > fanout:
                handle = t
            else:
                inner = (inner or ()) + (len(tops),)
        if n > fanout:
            break
        tops.append(t)
        ins = dependencies(t)
        if len(ins) != 1:
            end = None if ins else t
            if not ins and step and n < policy.SHARED_FANOUT and policy.CONSTANT_HANDLES & 1 \
                    and constant is not None and constant(t) and not (
                    policy.CONSTANT_HANDLES & 4 and step > 1
                    and len(dependents(tops[0])) > 1):  # fmt: skip
                inner = (inner or ()) + (len(tops) - 1,)
            break
        (t,) = ins
    return tuple(tops), end, handle, inner


# The owed roots' mirror as session 40 walked it (moved out of policy.py in session 41 with
# cpu41's MIRROR_FAST switch): tests/test_mirror_fast.py's reference.
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
    root's own meetings. Cost: once per opener, its lacked roots then read it."""
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
    own = _chain_of(via, dependents, dependencies, depth, fanout, constant, chains) \
        + (n > 1, not (constant is not None and constant(via)))  # fmt: skip
    out: dict = {}
    for i, e in enumerate(ins):
        rest = ins[:i] + ins[i + 1:] + (own,)
        tops = e[0]
        for c in tops:
            out[id(c)] = (c, None, None) if id(c) in out else (c, rest, tops[0])
    return meeting, out


def mirror_holds(task, meeting, via, dependents, dependencies, depth: int = 4,
                 fanout: int = MEETING_FANOUT, group=None) -> tuple | None:
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
    other meetings, no chain (twin anomaly: about a third of the plan's)."""
    if len(dependents(task)) >= SHARED_FANOUT:
        return None
    meetings = _meetings(task, dependents, dependencies, depth, fanout)
    found = False
    inputs = widest = 0
    for m, v in meetings:
        ins = dependencies(m)
        n = len(ins)
        if n > widest:
            widest = n
        if n > fanout:
            continue  # (no entry)
        inputs += 1
        if m is meeting and v is via:
            found = True
            continue
        for t in ins:
            if not (t is v or t == v) and len(dependents(t)) <= fanout:
                return None  # an entry the mirror does not list
    if not found or inputs > MEETING_SPREAD \
            or gathers_only(meetings, dependents, dependencies, group):  # fmt: skip
        return None
    return meets_further(meetings, dependents, dependencies, fanout), widest
