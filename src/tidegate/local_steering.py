"""The thread runtime's memory steering, for a run under ``memory_limit`` with the
process's readings (a *governed* run: :class:`tidegate.measure.Governor`).

After each batch of results :class:`Steering` turns the governor's reading into what the
core works with: the budget for held results, the ceiling a task starts under, each
group's need, and how many threads may run at once. local.run executes the core's
actions; this sizes the room the core decides within.
"""

from __future__ import annotations

import logging
import math
import time
import warnings
from itertools import accumulate
from typing import TYPE_CHECKING

import numpy as np
from dask.sizeof import sizeof

from .core import Finished, Scheduler
from .measure import MARGIN, MARGIN_BYTES, TASK_FOOTPRINT, Governor, neediest_first

if TYPE_CHECKING:
    from .local import Hooks, RunStats

logger = logging.getLogger("tidegate.local")


class Steering:
    """A governed run's books beside the core's: the tasks handed out and not back (and
    their groups' tasks left), each group's largest result, the threads fitted to memory,
    and the counts behind the run's warnings. ``handed_out`` as each task starts, ``step``
    with each batch of results, ``stepped`` after the core's actions for it ran."""

    def __init__(self, core: Scheduler, governor: Governor, hooks: Hooks, stats: RunStats,
                 ledger, total: float, threads: int, asked: int, disk) -> None:
        graph = core.graph
        self.core, self.governor, self.hooks, self.stats = core, governor, hooks, stats
        self.ledger, self.total, self.disk = ledger, total, disk
        # threads: those fitted to memory now; asked: the user's, all in a governed run's
        # pool (local._run), so the most that may run at once
        self.threads, self.asked = threads, asked
        self.group_of = graph.group.tolist()
        self.left = np.bincount(graph.group, minlength=len(graph.group_names)).tolist()
        self.upcoming = {g for g, n in enumerate(self.left) if n}
        self.running: dict[int, int] = {}  # task -> group, handed out and not back
        self.running_in: dict[int, float] = {}  # task -> bytes of its inputs, handed out
        core.grow = TASK_FOOTPRINT - 1  # unmeasured at a task's size: guessed from its inputs
        self.loaded_before = 0
        self.warned = False
        self.largest = 0.0
        self.largest_of: dict[int, float] = {}  # group -> its largest result so far
        self.rep_inputs = _representative_inputs(graph)
        # Groups nothing sizes (no chunk metadata, no inputs to guess from): one of their
        # group's tasks at a time until one finished (core._fill's probes).
        sized_layer = np.zeros(len(graph.group_names), bool)
        sized_layer[graph.group[~np.isnan(graph.layer_size)]] = True
        for g in np.flatnonzero(~sized_layer).tolist():
            if g not in self.rep_inputs:
                core.unknown[g] = 1
        self.fed: set[int] = set()  # groups of tasks fed by a task handed out
        self.begun: set[int] = set()  # groups with a task handed out
        self.buffers = _Buffers()
        # Fewer tasks at once than threads asked for (the limit's doing): how many tasks
        # started so, the limit that would have run them all (the largest estimate seen),
        # and how many tasks started in all.
        self.started_fewer, self.limit_for_all, self.started_all = 0, 0.0, 0
        if asked > threads:  # chunk metadata lowered them already
            self.limit_for_all = _limit_for_threads(governor, asked, governor.guess(0.0), 0.0,
                                                    hooks)  # fmt: skip
        # The governor counts from the first task handed out in a round (restart): what the
        # process grows by from there is those tasks'; set once a round has restarted it.
        self.started = False
        # A thread past those fitted to memory left idle in a step (core.extra_waits): the
        # reading the ceiling rests on is read again after RECHECK (_recheck), once per
        # step. (Below the working set only: at 300 MB stack-sum's gate refusals, rechecked
        # too, ran 1.43-1.76 tasks at once against 1.61-1.78, 5 reps each: no gain to show.)
        self.recheck = False
        self.cap_at_ask = math.inf
        self.refusals_seen = 0
        self.idle_since: float | None = None  # a thread stands idle at the gate since then

    def handed_out(self, i: int, inflight: int) -> None:
        """Task ``i`` is about to start, with ``inflight`` tasks on the threads."""
        core = self.core
        self.started_all += 1
        if self.threads < self.asked and inflight + 1 < self.asked:  # (review19: a task
            self.started_fewer += 1  # started on a thread past those fitted left none idle)
        group_of = self.group_of
        self.running[i] = g = group_of[i]
        self.begun.add(g)
        nbytes, dep_ptr, dep_idx = core.nbytes, core._dep_ptr, core._dep_idx
        self.running_in[i] = sum(nbytes[dep_idx[c]] for c in range(dep_ptr[i], dep_ptr[i + 1]))
        dependent_ptr, dependent_idx = core._dependent_ptr, core._dependent_idx
        for c in range(dependent_ptr[i], dependent_ptr[i + 1]):
            self.fed.add(group_of[dependent_idx[c]])
        if core.recomputed[i]:  # a dropped root runs again: its group has work left
            self.left[g] += 1
            self.upcoming.add(g)
        if not self.started:  # what the process grows by from here is the tasks'
            self.started = True
            self.governor.restart()

    def results_arrived(self) -> None:
        if self.idle_since is not None:  # a thread stood idle at the gate until now
            self.stats.gate_idle_time += time.perf_counter() - self.idle_since
            self.idle_since = None

    def step(self, events: list, viewing: set) -> None:
        """A batch of results (``events``; ``viewing``: those viewing a buffer held
        already): the budget, ceiling, needs and threads the core works with next."""
        core, governor, hooks, stats = self.core, self.governor, self.hooks, self.stats
        running, running_in, left, upcoming = (self.running, self.running_in, self.left,
                                               self.upcoming)  # fmt: skip
        largest, largest_of = self.largest, self.largest_of
        done_in = governor.finished
        threads, asked = self.threads, self.asked
        # What was held when the batch's results arrived: the highest RSS reading
        # since the last batch saw them all.
        held = sum(w.held for w in core.workers)
        ran = list(running.values())
        ran_in = list(running_in.values())
        # Results and inputs read back since the last ask: the process grew by them.
        fresh = float(core.bytes_loaded - self.loaded_before)
        for e in events:
            g = running.pop(e.task)
            running_in.pop(e.task)
            left[g] -= 1
            if not left[g]:
                upcoming.discard(g)
            if type(e) is Finished:
                done_in[g] = done_in.get(g, 0) + 1
                core.unknown[g] = 0  # measured: its tasks start by their need
                held += e.nbytes
                if e.nbytes > largest:
                    largest = e.nbytes
                # A view of memory held already takes none: its group's tasks need
                # no room for their output (a rechunk's slices were given 32 MB).
                out = 0 if e.task in viewing else e.nbytes
                fresh += out
                if out > largest_of.get(g, -1):
                    largest_of[g] = out
        self.largest = largest
        # Room is kept for groups measured, and for unmeasured ones about to run:
        # ready, or fed by a task handed out while all their input groups have
        # begun (a group whose only task comes last would hold the budget back all
        # run long; an anomaly's stores, fed by the reads, wait for the mean: kept
        # room for them ran its first half on one thread at 25% of threaded's peak).
        # Each with its tasks left: a group of one task (a reduction's aggregate)
        # takes one thread's room, not every thread's.
        feet, ready_in, fed, begun = governor.footprint, core.ready_in, self.fed, self.begun
        rep_inputs = self.rep_inputs
        soon = {g: left[g] for g in upcoming if g in feet or ready_in[g] or g in ran or (
            g in fed and begun.issuperset(rep_inputs.get(g, ())))}
        inputs = _unseen_inputs(soon, feet, rep_inputs, largest_of)
        # Held bytes as RSS sees them: a buffer viewed by several held results once.
        surplus = self.buffers.surplus()
        held -= surplus
        backlog = self.disk.backlog_bytes
        governor.budget(held, backlog, ran, threads, soon, largest, inputs, ran_in, fresh)
        # Each task starts only within the room it needs (core._make_room): per
        # group, its measured need (or a guess until it ran); held results get the
        # ceiling less what the tasks still running need. (Not the largest need times
        # the threads: at 140 MB that left vorticity's held results less than one
        # task's inputs, and every chunk was spilled.)
        # Roots cheap to run again are dropped earlier, keeping room for a task of
        # the neediest group about to run on each free thread (an anomaly's chunks,
        # held while the mean runs, were spilled once their consumers were ready).
        neediest, takes = 0.0, []
        for g in soon:  # the tasks that start come from these groups
            core.need[g] = need = governor.need(g, largest, inputs,
                                                largest_of.get(g, 0.0))  # fmt: skip
            takes.append((governor.occupies(g, need, largest, inputs), left[g]))
            # A task with larger inputs than its group's measured ones is guessed
            # from them (core._task_need); an unmeasured group's tasks all are.
            # Until a few of its tasks ran at that size: one reading can be low
            # (vorticity's differences took 32 MB past their output, or none).
            core.sized[g] = governor.sized.get(g, 0.0) if governor.readings(g) >= 3 else 0.0
            neediest = max(neediest, need)
        core.grow_cap = governor.guess(largest)
        ceiling = self.cap_at_ask = governor.ceiling + surplus  # as the core counts held
        # And never past the room the latest reading leaves: held bytes as counted
        # and the reading part ways (views whose count the surplus misses, the
        # process's own overhead), and a task started at a ceiling of counts alone
        # went 13 MB past the usable limit at vorticity's smallest.
        # What the running tasks need: each as it started (core._task_need: a large
        # task's grown guess) or its group's need now, whichever is more; the held
        # budget leaves the same room the cap counts.
        run_need = sum(max(core._task_need(t), core._needs.get(t, 0.0))
                       for t in running)  # fmt: skip
        ceiling = min(ceiling, held + surplus + governor.usable - governor.latest
                      + run_need)  # fmt: skip
        budget = max(governor.floor, ceiling - run_need)
        keep = max(governor.floor, budget - max(0, threads - len(running)) * neediest)
        reloads = core.bytes_loaded - self.loaded_before
        self.loaded_before = core.bytes_loaded
        per_task = governor.overhead / threads  # the budget's room per thread
        self.threads = threads = _threads_that_fit(
            governor, threads, asked, reloads, largest, held,
            neediest_first(takes, asked))  # fmt: skip
        core.below = _below_working_set(governor, asked, largest, soon, takes)
        # The threads left over start a task only where it and the room for the
        # next one fit (core._fits_after): a chunk's read beside a store, below the
        # working set, where the room for held results keeps one thread.
        core.after = neediest
        out = core.out
        for g in soon:
            out[g] = largest_of.get(g, core.need[g])  # unseen: as much as it needs
        for k, w in enumerate(core.workers):
            core.fit[k] = threads
            w.threads = asked
        if threads < asked:
            self.limit_for_all = max(self.limit_for_all, _limit_for_threads(
                governor, asked, per_task, largest, hooks))  # fmt: skip
        if not self.warned and governor.peak > 1.1 * hooks.cap and threads == 1:
            self.warned = True
            _warn_over_limit(governor, hooks.cap, core.graph.group_names, largest_of)
        if self.ledger.active > 1:
            budget = min(budget, self.ledger.budget(core, hooks.cap, self.total))
            ceiling = min(ceiling, budget)
        core._taken.clear()  # the reading saw what those buffers hold
        for k, w in enumerate(core.workers):
            w.budget = budget
            core.ceiling[k] = ceiling
            core.keep[k] = min(keep, budget)
        if budget < stats.lowest_budget:
            stats.lowest_budget = budget
        if threads < stats.fewest_threads:
            stats.fewest_threads = threads

    def stepped(self, waits: int | None, inflight: int) -> None:
        """After the core's actions for a batch ran (``waits``: its ``extra_waits``
        before the batch; None: no recheck, as for posttask's one-at-a-time steps)."""
        core = self.core
        if not self.started:  # nothing started: count from after the releases
            self.governor.restart()
        self._gate_check()
        if waits is not None:
            self.recheck = (core.below and core.extra_waits > waits
                            and inflight < self.asked and self.ledger.active == 1)

    def _gate_check(self) -> None:
        """After a step's actions ran: did the gate hold a task back? Then a thread stands
        idle until the next results; and a fresh reading tells whether memory was free."""
        core, governor, stats = self.core, self.governor, self.stats
        if core.gate_refusals == self.refusals_seen:
            return
        n, self.refusals_seen = core.gate_refusals - self.refusals_seen, core.gate_refusals
        self.idle_since = time.perf_counter()
        held = sum(w.held for w in core.workers)
        run_need = sum(core._running_need)
        short, ceiling = core.gate_short, min(core.ceiling)
        need = short + ceiling - held - run_need  # the task's own (spilled inputs included)
        rss = governor.fresh() - self.disk.backlog_bytes
        free = governor.usable - rss - need
        stats.gate_refusals += n
        if free >= run_need:
            stats.gate_refusals_with_room += n
        if free >= 0:
            stats.gate_refusals_with_room_now += n
        # The limit at which the task would have fitted beside the running ones.
        self.limit_for_all = max(self.limit_for_all,
                                 _rounded(self.hooks.cap + short / (1 - MARGIN)))  # fmt: skip

    def recheck_ceiling(self, dispatch) -> None:
        """No result came within RECHECK of a step that left a thread idle: read again."""
        self.recheck = False
        _recheck(self.core, self.governor, self.running, dispatch, self.cap_at_ask)

    def finish(self) -> None:
        """The run ended well: say if memory_limit held it to fewer tasks at once."""
        stats, hooks = self.stats, self.hooks
        # Tasks started with fewer threads than asked, and waits at the gate (a thread idle
        # beside a running task), against the tasks started.
        share = min(1.0, (self.started_fewer + stats.gate_refusals) / max(1, self.started_all))
        if self.limit_for_all > hooks.cap and share >= FEWER_SHARE:
            stats.limit_for_all_threads = self.limit_for_all
            _warn_fewer_threads(self.governor, hooks.cap, stats, self.asked, share,
                                self.core.graph.group_names)  # fmt: skip


# Seconds after a step whose gate left a thread idle before RSS is read again (_recheck).
RECHECK = 0.002


def _recheck(core: Scheduler, governor: Governor, running: dict, dispatch, cap: float) -> None:
    """A task waited beside a running one on a thread past those fitted to memory (the
    core's ``extra_waits``): read RSS again and, where it shows more room than the reading
    at the ask did, raise the ceiling (as the ask computes it:
    held results as the core counts them, the usable limit less the reading, plus what the
    running tasks still need; never past the ask's own cap) and offer the waiting tasks
    again. A reading at the ask can catch memory another thread is still freeing: after
    vorticity's store, zarr's event loop let its 30 MB encoded chunk go up to 2 ms after the
    store returned, and the ceiling 30 MB short kept the next two chunk reads apart."""
    governor._read()  # a sample as the sampler takes them
    held = sum(w.held for w in core.workers)
    run_need = sum(max(core._task_need(t), core._needs.get(t, 0.0)) for t in running)
    ceiling = min(cap, held + governor.usable - governor.latest + run_need)
    raised = False
    for k in range(len(core.workers)):
        if ceiling > core.ceiling[k]:
            core.ceiling[k] = ceiling
            raised = True
    if raised:
        # As at the ask: the reading saw what shared buffers' releases took off the old
        # ceiling; kept, _unhold would give it back on top of the new one (twice counted).
        core._taken.clear()
        dispatch(core.handle_many(()))




class _Buffers:
    """Held results that are numpy views of other objects' memory, so that held bytes can
    be counted once per buffer: ``dask.sizeof`` counts every view in full (at 140 MB,
    vorticity's pads and slices counted 32 MB more than held in half the batches, up to
    160 MB), and a small view keeps its whole buffer alive."""

    def __init__(self) -> None:
        self.views: dict[int, tuple] = {}  # task -> (buffer, its bytes, the view's count)
        self.owners: set[int] = set()  # id() of held arrays owning their memory

    def add(self, i: int, value, nbytes: float) -> None:
        if type(value) is not np.ndarray:
            return
        if value.base is None:
            self.owners.add(id(value))
        else:
            b = buffer_of(value)
            self.views[i] = (b, b.nbytes if isinstance(b, np.ndarray) else sizeof(b), nbytes)

    def remove(self, i: int, value) -> None:
        if type(value) is np.ndarray:
            if value.base is None:
                self.owners.discard(id(value))
            else:
                self.views.pop(i, None)

    def surplus(self) -> float:
        """Bytes counted for held views beyond the buffers they keep alive (negative when
        views keep more than they count)."""
        if not self.views:
            return 0.0
        counted, kept, owners = 0.0, {}, self.owners
        for b, size, n in self.views.values():
            counted += n
            if id(b) not in owners:  # an owner held itself is counted already
                kept[id(b)] = size
        return counted - sum(kept.values())



def buffer_of(a):
    """The object owning an array's memory (the end of its chain of bases)."""
    while isinstance(a, np.ndarray) and a.base is not None:
        a = a.base
    return a



def _representative_inputs(graph) -> dict[int, dict[int, int]]:
    """Per group of tasks with inputs, its task with the most inputs: how many of them
    come from each group (a group's footprint is guessed from them before it runs)."""
    ndeps = np.diff(graph.dep_ptr)
    order = np.lexsort((-ndeps, graph.group))  # by group, most inputs first
    first = np.ones(len(order), bool)
    first[1:] = graph.group[order][1:] != graph.group[order][:-1]
    out: dict[int, dict[int, int]] = {}
    for i in order[first].tolist():
        if ndeps[i]:
            deps = graph.dep_idx[graph.dep_ptr[i] : graph.dep_ptr[i + 1]]
            groups, counts = np.unique(graph.group[deps], return_counts=True)
            out[int(graph.group[i])] = dict(zip(groups.tolist(), counts.tolist()))
    return out


def _unseen_inputs(upcoming, seen, rep_inputs: dict, largest_of: dict) -> dict[int, float]:
    """Bytes of a task's inputs, for upcoming groups not measured yet whose input groups
    all ran (their largest results so far)."""
    out = {}
    for g in upcoming:
        if g in seen:
            continue
        counts = rep_inputs.get(g)
        if counts and all(d in largest_of for d in counts):
            out[g] = sum(largest_of[d] * n for d, n in counts.items())
    return out


def _warn_over_limit(governor: Governor, limit: float, names: list, outputs: dict) -> None:
    """One thread, nothing held beyond its inputs, and still over: the limit is below what
    one task needs (known only once it ran: no chunk metadata said so beforehand). A
    task needs its footprint past its output, that output (``outputs``: each group's
    largest result so far) and its inputs; the neediest group is named. (With the
    footprint alone, a task returning 100 MB at 30 MB was said to need 1.9 MiB, and the
    limit to hold once tasks ran fewer at once: on one thread.)"""
    from dask.utils import format_bytes

    def own(g) -> float:  # besides its inputs
        return governor.footprint.get(g, 0.0) + outputs.get(g, 0.0)

    groups = {*governor.footprint, *outputs}
    group = max(groups, key=lambda g: own(g) + governor.sized.get(g, 0.0), default=None)
    foot = own(group) if group is not None else 0.0
    name = names[group] if group is not None else "?"
    inputs = governor.sized.get(group, 0.0) if group is not None else 0.0
    if 0 < foot + inputs <= governor.usable:  # one task and its inputs fit: the peak came
        warnings.warn(  # from tasks run together before any had been measured
            f"the process reached {format_bytes(int(governor.peak))} above its start, past "
            f"memory_limit={format_bytes(int(limit))}, while tasks whose size nothing told "
            f"beforehand ran together (tasks of {name!r} need about {format_bytes(int(foot))} "
            f"besides their inputs); measured, they run within the limit, fewer at once. "
            f"Chunk metadata (dask arrays) or a lower num_workers avoids this",
            RuntimeWarning,
            stacklevel=2,
        )
        return
    smallest = (governor.peak - governor.usable + (1 - MARGIN) * limit) / (1 - MARGIN)
    warnings.warn(
        f"memory_limit={format_bytes(int(limit))} is below what this compute needs with one "
        f"task at a time: the process reached {format_bytes(int(governor.peak))} above its "
        f"start (tasks of {name!r} need about "
        f"{format_bytes(int(foot))} besides their inputs). The smallest memory_limit that "
        f"would work is about {format_bytes(int(smallest))}; or use smaller chunks",
        RuntimeWarning,
        stacklevel=2,
    )


FEWER_SHARE = 0.25  # of a run's tasks started with fewer threads than asked: then say so


def _rounded(nbytes: float) -> float:
    return math.ceil(nbytes / 2**20) * 2**20  # whole MiB, up


def _limit_for_threads(governor: Governor, n: int, per_task: float, largest: float,
                       hooks: Hooks) -> float:  # fmt: skip
    """The memory_limit at which :func:`_threads_that_fit`'s rules keep ``n`` threads (the
    same arithmetic bridge._fit refuses an impossible limit with, for ``n`` tasks): the
    limit's usable part holds ``n`` footprints of the largest chunk or result, and ``n``
    times ``per_task`` (the need of the neediest group about to run, as the budget counted
    it) plus the floor for held results, which scales with the limit as this run's does."""
    size = max(governor.chunk, largest)
    share = hooks.floor / hooks.cap if hooks.floor > hooks.chunk else 0.0

    def held(limit: float) -> float:  # what the usable part must hold at this limit
        return max(n * TASK_FOOTPRINT * size, n * per_task + max(hooks.chunk, share * limit))

    limit = 0.0
    for _ in range(60):  # a fixed point: the floor grows with the limit, by less than 1:1
        limit = (held(limit) + MARGIN_BYTES) / (1 - MARGIN)
    return _rounded(limit)


def _warn_fewer_threads(governor: Governor, limit: float, stats: RunStats, asked: int,
                        share: float, names: list) -> None:  # fmt: skip
    """memory_limit held the run to fewer tasks at once than threads: say by how much, and
    which limit would run them all (once per compute). Logged, not warnings.warn: Python
    shows a warning once per place in the code, so a second compute would say nothing,
    and a limit that holds is no error to filter (distributed logs its memory notices)."""
    from dask.utils import format_bytes

    group, foot = max(governor.footprint.items(), key=lambda kv: kv[1], default=(None, 0.0))
    what = (f" (tasks of {names[group]!r} need about {format_bytes(int(foot))} each besides "
            f"their inputs)" if group is not None else "")  # fmt: skip
    # Threads lowered (by chunk metadata or measured needs), or only tasks held back at the
    # gate beside running ones (the thread count stayed).
    fits = (f"{stats.fewest_threads} of {asked} threads" if stats.fewest_threads < asked
            else f"fewer than its {asked} threads")  # fmt: skip
    holds = "The limit holds; the" if governor.peak <= 1.1 * limit else "The"  # (see above)
    logger.warning(
        "memory_limit=%s fits %s at once for much of this compute (%.0f%% of its tasks "
        "started with a thread idle)%s; about %s would run %d. %s compute takes longer.",
        format_bytes(int(limit)), fits, 100 * share, what,
        format_bytes(int(stats.limit_for_all_threads)), asked, holds,
    )  # fmt: skip


def _below_working_set(governor: Governor, threads: int, largest: float, groups, takes: list
                       ) -> bool:  # fmt: skip
    """Does the limit hold fewer of the tasks about to run than ``threads`` (by the chunk
    rule or by needs measured), yet two of the neediest? ``takes``: (bytes, tasks left) per
    group of ``groups``, as _threads_that_fit gets them. core._fits_after's outlasting rule
    and _recheck act only there: they pair tasks that fit together but for a thread kept
    for the next one or a reading taken as memory left (vorticity's two chunk reads at 170
    MB). Not while the neediest groups' needs are guesses (those of an untrusted group come
    with its inputs, Governor.occupies, and keep every limit on one thread until measured):
    at 200 MB vorticity fits two threads once its needs are trusted (~1 s in), and the
    changes acted only in that first second (11-18 decisions a run against 90-115 at 170
    MB). Nor where two of the neediest do not fit (140 MB: 2 x 71 > 125 MB usable): nothing
    pairs there, the rechecks started light rechunk pieces only, and runs with the changes
    were slower than the base's in 24 of 30 interleaved pairs (load 3-17) and wrote 1.4-2.4
    GB in 7 of 24 (base 1.3-2.0 GB in 2 of 21, else 0.80-0.96)."""
    picked = neediest_first(takes, threads)
    if not picked or _most_threads(governor, threads, largest, picked) >= threads:
        return False
    if 2 * picked[0] > governor.usable:  # no two of the neediest fit: nothing pairs
        return False
    return all(governor.trusted(g) for g, (b, _) in zip(groups, takes) if b >= picked[-1])


def _most_threads(governor: Governor, most: int, largest: float, needs: list = ()) -> int:
    """_threads_that_fit's cap: how many tasks the usable limit holds at once, at most
    ``most`` (the chunk rule, or ``needs`` where they are known and within it)."""
    size = max(governor.chunk, largest)
    if not size:
        return most
    usable = governor.usable
    foot = TASK_FOOTPRINT * size
    fit = int(usable // foot)
    if needs and 0 < needs[-1] and needs[0] <= foot and usable >= (TASK_FOOTPRINT + 1) * size:
        totals = list(accumulate(needs))
        fit = sum(total <= usable for total in totals)
        if fit == len(needs):
            fit += int((usable - totals[-1]) // needs[-1])
    return min(most, max(1, fit))


def _threads_that_fit(governor: Governor, threads: int, most: int, reloads: float,
                      largest: float, held: float = 0.0, needs: list = ()) -> int:  # fmt: skip
    """Fewer tasks at once rather than thrash: one thread fewer when what running tasks
    need leaves held results less than the budget's floor, or when spilled results are
    read back while the budget holds fewer than four of the largest results; one more once
    there is room for another task's share besides the floor and besides the results
    ``held`` now (a thread whose room must first be spilled for writes out results whose
    consumers are about to run: the budget would drop below what is held at once). (One
    worker: the thread runtime's.)

    At most as many as the usable limit holds a task's footprint for: ``TASK_FOOTPRINT``
    chunks; or, where none of ``needs`` is more and the limit holds one more chunk beside
    one task's footprint, as many of ``needs`` as fit at once (what the tasks about to run
    take, neediest first, each group on at most its tasks left: Governor.occupies,
    measure.neediest_first; past them, more of the last). An average of them let 6
    threads run where 200 + 5 x 20 MB did not fit 256 MB (review15). Chunks alone
    kept vorticity at 200 MB and the anomaly at 276 MB on one thread (usable 180 and 250
    MB, less than twice 4 x 32 MB) while their tasks need 62-65 MB; each task still starts
    only within the room it needs (the core's gate). (A guard once kept small limits,
    below 137.5 MB, on the chunk rule: their margin was below the 11 MB dask's import of
    distributed added inside the first compute, which `import tidegate` now does.)"""
    size = max(governor.chunk, largest)
    most = _most_threads(governor, most, largest, needs)
    if threads > most or (threads > 1 and (
            governor.room < governor.floor or (reloads > 0 and governor.room < 4 * largest))):
        return max(1, min(most, threads - 1))
    per_task = governor.overhead / max(1, threads)
    if size and threads < most and not reloads and governor.room - per_task > max(
            governor.floor, held):  # fmt: skip
        return threads + 1
    return threads


