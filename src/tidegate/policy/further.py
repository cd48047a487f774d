"""Further meetings: the meeting beyond a root's own (the other side of a pair, a final
gather) and the roots it needs."""

from __future__ import annotations

from .roots import MEETING_FANOUT
from .spread import FURTHER_GATHER
from .meetings import MeetingPlan, _chain_fast, _chain_of, _count, _meetings, _top, gathers_only


def further_partners(
    task, dependents, dependencies, where, depth: int = 4, fanout: int = MEETING_FANOUT,
    constant=None, nbytes=None,
) -> dict:
    """Partners one meeting further, for a root with none at its first (nothing there is
    placed yet): where that meeting's output alone meets another (rechunk: the merge of
    u's halves added to the merge of v's). The other side is found where it is held, else
    up through its own meeting's inputs. A hint, not a reason to wait: taken when that
    worker admits (waiting for it serialised a tree reduction's loads onto few workers:
    twin anomaly 100x4, 1.19x queuing's time). Twin rechunk-add, 1,000 steps of 190 MB
    (bench/twin_workloads.py): moved 141 GB against queuing's 165 at 20x4, 45 against 186
    at 100x4."""
    return further_meeting(task, dependents, dependencies, where, depth, fanout, constant,
                           nbytes)[0]


def _further_meetings(meetings, dependents, dependencies, fanout):
    """``(meeting, further meeting, its inputs)`` for each further meeting of a root's
    ``meetings``: the one dependent of a meeting, reading 2 to ``fanout`` inputs (shared by
    :func:`_further_inputs` and :func:`gathers_further`)."""
    for m, _ in meetings:
        ds = dependents(m)
        if len(ds) != 1:
            continue
        (m2,) = ds
        inputs = dependencies(m2)
        if 1 < len(inputs) <= fanout:
            yield m, m2, inputs


def _further_inputs(meetings, dependents, dependencies, fanout):
    """The other inputs ``t`` of each further meeting of a root's ``meetings``
    (:func:`_further_meetings`; the walk shared by :func:`further_meeting`,
    :func:`further_plan` and :func:`further_tasks`)."""
    for m, _, inputs in _further_meetings(meetings, dependents, dependencies, fanout):
        for t in inputs:
            if not (t is m or t == m):  # (identity first, as in meeting_partners)
                yield t


def further_meeting(
    task, dependents, dependencies, where, depth: int = 4, fanout: int = MEETING_FANOUT,
    constant=None, nbytes=None, meetings: list | None = None, chains: dict | None = None,
    group=None,
) -> tuple[dict, bool]:
    """``(further_partners, whole)``: ``whole`` when every other input of each further
    meeting was found somewhere, so that this root's side is all that meeting still
    lacks (rechunk-add: the other side's loads are running). Such a root may go past a
    worker's in-flight count like a root that completes a consumer; a part of a wider
    meeting (a tree reduction's next level, most of whose inputs are nowhere yet) may not:
    piling those onto the first subtrees' workers raised anomaly 100x4's peak 1.24x
    (with ``whole``: 1.05x). ``meetings``, ``chains``, when given: ``task``'s
    :attr:`MeetingPlan.meetings`, the chains kept (see :func:`meeting_plan`). ``group``:
    as :func:`further_plan`'s."""
    scores: dict = {}
    whole = None
    if meetings is None:
        meetings = _meetings(task, dependents, dependencies, depth, fanout)
    if group is not None and gathers_further(meetings, dependents, dependencies, fanout,
                                             group):
        return scores, False
    for t in _further_inputs(meetings, dependents, dependencies, fanout):
        if len(dependents(t)) > fanout:
            whole = False  # a store handle, a grid: no meeting place
            continue
        if _count(where(t), scores):
            whole = whole is not False
            continue
        before = sum(scores.values())
        ins = dependencies(t)
        if len(ins) <= fanout:
            for u in ins:
                chain = _chain_of(u, dependents, dependencies, depth, fanout, constant,
                                  chains)
                _count(_top(*chain, where, nbytes)[0], scores)
        found = sum(scores.values()) > before
        whole = found and whole is not False
    return scores, bool(whole) and bool(scores)


def further_plan(meetings, dependents, dependencies, depth: int = 4,
                 fanout: int = MEETING_FANOUT, constant=None, chains: dict | None = None,
                 unique: bool = False, group=None) -> tuple:
    """The structural part of :func:`further_meeting` (same arguments; ``meetings``
    required): per other input ``t`` of each further meeting, ``(t, chains of t's inputs)``
    (:func:`_chain`; none when t reads more than ``fanout``), or None for an input read
    by more than ``fanout`` tasks (no meeting place). It holds while the graph does, as a
    :class:`MeetingPlan`; :func:`further_by_plan` is the live part. Why: a root parked on
    its further meeting's busy worker is placed again at about every task end there
    (twin rechunk-add 100x4), each walk reading the graph's edges anew.

    ``chains``, when given, also keeps each further meeting's entries, every input's (the
    root's own meeting's too), under ``-id(meeting)`` (ids are positive: no chain's key),
    ``(meeting, ((t, entry), ...))`` in its inputs' order, on the chains' terms (they hold
    while the graph does): a root's plan is the entries of its further meetings but its
    own meetings'. Why: the roots whose meetings end in one further meeting built the same
    entries each (anomaly's openers of the four groups under one next-level combine: each
    the other three groups', 12 chains; cpu33a-findings.txt).

    ``unique``: as :func:`meeting_plan`'s (each meeting's own input passed by identity
    alone). With ``chains``, the parts are built by :func:`_further_part`. ``group(t)``,
    when given: no further meeting where each is a final gather (:func:`gathers_further`)."""
    if group is not None and gathers_further(meetings, dependents, dependencies, fanout,
                                             group):
        return ()
    if chains is None:
        return tuple(_further_entry(t, dependents, dependencies, depth, fanout, constant,
                                    None)
                     for t in _further_inputs(meetings, dependents, dependencies, fanout))
    # (_further_inputs' walk inline, with the look-up of each part kept: a generator's
    # steps and a call cost more, and most asks find every part kept)
    out: list = []
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
            part = _further_part(m2, inputs, dependents, dependencies, depth, fanout,
                                 constant, chains)
        if unique:
            for t, entry in part[1]:
                if t is not m:
                    out.append(entry)
        else:
            for t, entry in part[1]:
                if not (t is m or t == m):
                    out.append(entry)
    return tuple(out)


def gathers_further(meetings, dependents, dependencies, fanout, group,
                    always: bool = False) -> bool:
    """:data:`FURTHER_GATHER`: is every further meeting of a root's ``meetings`` (the one
    dependent of a meeting, reading 2 to ``fanout`` inputs: :func:`_further_meetings`) a
    final gather of one collection's pieces (:func:`gathers_only`: no dependents, more than
    two inputs of one task group: the ``finalize`` of a ``da.store``'s per-chunk stores)?
    Then it has no further meeting: the gather's inputs are tiny and end on its one worker
    whatever the placement, so its hint co-locates nothing, and its ``whole`` let a root
    pass its worker's count with nothing completed. Why: seed slice-add of 16 steps on
    4 x 2 (4 pairs of 32 MB loads, each pair met in its store): the first array's last
    load went where the others of its array were, past that worker's count, and its pair
    followed it: two pairs on one worker beside an idle one (1.25-1.5x queuing's peak;
    small46-findings.txt). Not where another further meeting is there too (anomaly: a
    load's tree reduction and its store, whose finalize's hint keeps the loads of one
    reduction together: without it, twin 6-12 steps, up to 1.53x queuing's time).
    FURTHER_GATHER 2: the walks' answer is False (their hint stays, found as in 0);
    ``always``: the answer 1 gives (the body then holds the hint to the workers' share of
    the gather, ``Placement._gather_share``)."""
    if not FURTHER_GATHER or FURTHER_GATHER == 2 and not always:
        return False
    found = False
    for _, m2, _ in _further_meetings(meetings, dependents, dependencies, fanout):
        if not gathers_only(((m2, None),), dependents, dependencies, group):
            return False
        found = True
    return found


def _further_entry(t, dependents, dependencies, depth, fanout, constant, chains):
    """:func:`further_plan`'s entry for further input t: None when t is read by more
    than ``fanout`` tasks, else ``(t, chains of t's inputs)`` (none when t reads more)."""
    if len(dependents(t)) > fanout:
        return None
    ins = dependencies(t)
    return (t, tuple(_chain_of(u, dependents, dependencies, depth, fanout, constant, chains)
                     for u in ins) if len(ins) <= fanout else ())


def _further_part(m2, inputs, dependents, dependencies, depth, fanout, constant,
                  chains) -> tuple:
    """:func:`further_plan`'s kept part of further meeting ``m2``: the
    entries :func:`_further_entry` gives, each built with the kept chains read in place and
    a loop for a generator; kept under ``-id(m2)``."""
    entries = []
    for t in inputs:
        if len(dependents(t)) > fanout:
            entries.append((t, None))
            continue
        ins = dependencies(t)
        if len(ins) > fanout:
            entries.append((t, (t, ())))
            continue
        found = []
        for u in ins:
            kept = chains.get(id(u))
            if kept is not None and kept[0] is u:
                found.append(kept[1])
            else:
                chain = _chain_fast(u, dependents, dependencies, depth, fanout, constant)
                chains[id(u)] = (u, chain)
                found.append(chain)
        entries.append((t, (t, tuple(found))))
    part = chains[-id(m2)] = (m2, tuple(entries))
    return part


def further_by_plan(plan: tuple, where, nbytes=None) -> tuple[dict, bool]:
    """:func:`further_meeting`'s answer from its :func:`further_plan`: where each input
    is now."""
    scores: dict = {}
    whole = None
    for entry in plan:
        if entry is None:
            whole = False  # a store handle, a grid: no meeting place
            continue
        t, chains = entry
        found = where(t)
        if found:
            for w in found:
                scores[w] = scores.get(w, 0) + 1
            whole = whole is not False
            continue
        for tops, end, handle, inner in chains:
            if inner is None:  # (_top's first part inlined: its workers only, the first
                # top held or processing somewhere, asked in order up to it, in C)
                held = next(filter(None, map(where, tops)), None)
                if held is None:
                    continue
            else:
                held = _top(tops, end, handle, inner, where, nbytes)[0]
                if not held:
                    continue
            found = True
            for w in held:
                scores[w] = scores.get(w, 0) + 1
        whole = bool(found) and whole is not False
    return scores, bool(whole) and bool(scores)


def further_plan_tasks(plan: tuple) -> tuple[list, list]:
    """:func:`further_tasks` from the meetings' :func:`further_plan` (the same lists)."""
    placed: list = []
    sized: list = []
    for entry in plan:
        if entry is None:
            continue
        t, chains = entry
        placed.append(t)
        for tops, _, handle, inner in chains:
            placed.extend(tops)
            if handle is not None:
                sized.append(handle)
            if inner is not None:
                sized.extend(tops[i] for i in inner)
    return placed, sized


def walked_tasks(plan: MeetingPlan) -> tuple[list, list]:
    """``(placed, sized)``: the tasks whose place (``where``) and whose size
    :func:`meeting_partners` may read with ``plan`` (the handles it tests). Its answer
    holds while none of them moves and each size is known: a body may keep it until
    then. Structural: it holds as long as ``plan`` does."""
    placed: list = []
    sized: list = []
    for inputs in plan.inputs:
        for tops, _, handle, inner, others, _ in inputs:
            placed.extend(tops)
            if handle is not None:
                sized.append(handle)
            if others == 2:  # (a handle by structure: no partner while handle-sized)
                sized.append(tops[0])
            if inner is not None:
                sized.extend(tops[i] for i in inner)
    return placed, sized


def further_tasks(meetings, dependents, dependencies, depth: int = 4,
                  fanout: int = MEETING_FANOUT, constant=None,
                  chains: dict | None = None, group=None) -> tuple[list, list]:
    """:func:`walked_tasks` for :func:`further_meeting` (same arguments; with ``group``,
    none where every further meeting is a final gather, as :func:`further_plan`)."""
    placed: list = []
    sized: list = []
    if group is not None and gathers_further(meetings, dependents, dependencies, fanout,
                                             group):
        return placed, sized
    for t in _further_inputs(meetings, dependents, dependencies, fanout):
        if len(dependents(t)) > fanout:
            continue
        placed.append(t)
        ins = dependencies(t)
        if len(ins) <= fanout:
            for u in ins:
                tops, _, handle, inner = _chain_of(u, dependents, dependencies, depth,
                                                   fanout, constant, chains)
                placed.extend(tops)
                if handle is not None:
                    sized.append(handle)
                if inner is not None:
                    sized.extend(tops[i] for i in inner)
    return placed, sized
