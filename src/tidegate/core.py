"""Sans-I/O scheduler state machine: events in, actions out. No threads, no clock, no I/O.

Rules of this file: task state changes only through ``_transition`` (the table below is
every legal move); the per-worker books and the decisions read from them live in books.py
and policy.py, shared with the dask plugin; this file translates events and executes.

Every task moves through::

    waiting --inputs held--> ready --chosen--> processing --Finished--> memory --unused--> released
                                                          --Failed---> erred     |  ^
                                                                   over budget  v  | needed
                                                                               spilled
    spilled --unused--> released
    memory --over budget, a root cheaper to run again than to spill--> dropped --needed--> ready
           (or a view of a held input: made again from it, nothing written)
    ready --a piece of such a root's output not cut yet, with it--> dropped --root woken--> waiting
    waiting --reading such a piece alone, with it--> dropped --piece woken--> waiting

A dropped root's output is discarded instead of written to disk; it is made ready again
once the tasks needing it wait for nothing else, and runs again, in the place of the
earliest of them (with a dropped view, the one case, besides a failure elsewhere, where a
task runs twice). Ready pieces of it still to cut (a rechunk's second split) go with it and
run after it, and so do tasks waiting for such a piece alone.

Workers are ``threads`` slots each; a worker is given a task only for a free slot, so
"processing" and "running" coincide here and priority is decided by the scheduler, not by
a worker queue. Every event gets a stimulus id from a counter; ``story(task)`` prints the
moves and decisions that concern a task.
"""

from __future__ import annotations

import heapq
import math
from collections import deque
from dataclasses import dataclass
from enum import IntEnum

import numpy as np

from . import policy as policy_module  # (FREES_SLOT read per decision: tests set it)
from .books import LOG_SIZE, Books, InvalidTransition, Limits, WorkerBook
from .graph import TaskGraph
from .policy import (
    Policy,
    footprint_refused,
    frees_slot,
    joins_started_fan_in,
    largest_footprint,
    meeting_partners,
    meeting_plan,
    read_on,
    reduces,
    second_input,
    spill_candidates,
)

__all__ = [
    "State", "WAITING", "READY", "PROCESSING", "MEMORY", "RELEASED", "ERRED", "SPILLED", "DROPPED",
    "STATE_NAMES", "Finished", "Failed", "Run", "Release", "Spill", "Load", "Worker",
    "Scheduler", "InvalidTransition",
]  # fmt: skip


class State(IntEnum):
    WAITING = 0
    READY = 1
    PROCESSING = 2
    MEMORY = 3
    RELEASED = 4
    ERRED = 5
    SPILLED = 6  # held on disk: finished, not in memory
    DROPPED = 7  # a root's output discarded under memory pressure: it will run again


WAITING, READY, PROCESSING, MEMORY, RELEASED, ERRED, SPILLED, DROPPED = (int(s) for s in State)
STATE_NAMES = tuple(s.name.lower() for s in State)
_PENDING = frozenset((WAITING, READY))
_FINISHED = frozenset((MEMORY, RELEASED, SPILLED, DROPPED))  # ran (DROPPED: its output measured)
# How many levels of tasks reading a withdrawn piece alone go with it (core._following).
FOLLOW_DEPTH = 2
# A task with inputs under this share of those its group's need was measured with needs its
# share of that need (a truediv of a pad's two edge rows is not given the 68 MB of one of
# its full-chunk siblings: at vorticity's 140 MB that need spilled a chunk and its view).
SMALLER = 0.25

# Ready tasks _pop_ready looks through, best first, for one whose inputs are all in memory.
LOOK_AHEAD = 64
# Tasks with more inputs (or readers) than this keep their list once sliced (_wide_list).
WIDE = 64
# Tasks _pull_consumers brings forward for one result at most (its walk stops there).
PULL_MOST = 256
# Walks for a layer's results that found no cone, in a row, after which its results are
# not walked again (a 1-D stencil of 110k tasks walked 20k times and pulled nothing: its
# core took 10x the time).
PULL_MISSES = 8


def _layers(keys: list) -> list[int]:
    """Per task, an index of its layer: the name its key shares with its layer's others."""
    ids: dict = {}
    return [ids.setdefault(k[0] if type(k) is tuple else k, len(ids)) for k in keys]


def _heap_remove(heap: list, k: int) -> None:
    """Remove entry k of a heap in O(log n)."""
    last = heap.pop()
    if k < len(heap):
        heap[k] = last
        heapq._siftup(heap, k)  # noqa: SLF001 - heapq's own, exact for this
        heapq._siftdown(heap, 0, k)  # noqa: SLF001


# Every legal move: (start, finish) -> Scheduler method. Anything else is InvalidTransition.
TRANSITIONS = {
    (WAITING, READY): "_make_ready",
    (READY, PROCESSING): "_run",
    (PROCESSING, MEMORY): "_finished",
    (PROCESSING, ERRED): "_failed",
    (MEMORY, SPILLED): "_spill_one",
    (SPILLED, MEMORY): "_load",
    (MEMORY, RELEASED): "_release",
    (SPILLED, RELEASED): "_release",
    (MEMORY, DROPPED): "_drop",
    (DROPPED, READY): "_recompute",
    # A ready piece of a dropped root's output (a rechunk's split) is withdrawn with it,
    # and waits for the root again once the root is woken.
    (READY, DROPPED): "_withdraw",
    (WAITING, DROPPED): "_withdraw",  # reading such a piece alone: it goes with it
    (DROPPED, WAITING): "_rewait",
}


# -- events (in) ------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Finished:
    task: int
    nbytes: int


@dataclass(frozen=True, slots=True)
class Failed:
    task: int


# -- actions (out) ----------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Run:
    task: int
    worker: int


@dataclass(frozen=True, slots=True)
class Release:
    task: int
    worker: int


@dataclass(frozen=True, slots=True)
class Spill:
    """Move a held result out of memory (to disk); the core counts it out of held bytes."""

    task: int
    worker: int


@dataclass(frozen=True, slots=True)
class Load:
    """Bring a spilled result back into memory; always emitted before the Run needing it."""

    task: int
    worker: int


# A worker's books (threads, budget, held, spilled, peak_held, running, ...): books.py.
Worker = WorkerBook


class Scheduler:
    """One compute's scheduling state. ``start()`` then ``handle(event)``; both return actions."""

    def __init__(
        self,
        graph: TaskGraph,
        workers: list[tuple[int, float]],
        policy: Policy | None = None,
        validate: bool = False,
        log_size: int = LOG_SIZE,
    ):
        if not workers:
            raise ValueError("at least one worker is needed")
        self.graph = graph
        self.policy = policy or Policy()
        self.validate = validate
        self.books = Books(self.policy, log_size)
        self.books.leads_on = self._leads_on
        for w, (t, b) in enumerate(workers):
            if int(t) < 1:
                raise ValueError(f"a worker needs at least one thread, got {t}")
            if not float(b) > 0:
                raise ValueError(f"a memory budget must be > 0 bytes, got {b}")
            self.books.add_worker(w, t, b)
        self.workers = list(self.books.workers.values())
        self.caps = [w.cap for w in self.workers]
        self._may_spill = any(w.budget < math.inf for w in self.workers)
        budget = min(w.budget for w in self.workers)
        i, footprint = largest_footprint(graph.size)
        refused = footprint_refused(budget, footprint, graph.keys[i] if i >= 0 else None)
        if refused:
            raise ValueError(refused)
        n = len(graph)
        self._dep_ptr = graph.dep_ptr.tolist()
        self._dep_idx = graph.dep_idx.tolist()
        self._dependent_ptr = graph.dependent_ptr.tolist()
        self._dependent_idx = graph.dependent_idx.tolist()
        self._wide_dependencies: dict[int, list] = {}  # see _wide_list
        self._wide_dependents: dict[int, list] = {}
        self._priority = graph.priority.tolist()
        self._root = graph.root.tolist() if self.policy.withholds else [False] * n
        self._known_size = graph.size.tolist()
        # Consumers are brought forward (_pull_consumers), not past a user's priorities;
        # without a budget too (one28): there only pulls keep a chunk whose readers
        # dask.order puts after later loads from waiting in memory for them (xarray on
        # zarr, tidegate.get(memory_limit="none"), 2 threads, peak held, core26_drive's
        # graphs: resample("7D").mean().to_zarr 374 -> 89 MB, a groupby anomaly stored 408
        # -> 227, rolling(time=5).mean().max() 450 -> 78: what a budgeted run holds).
        self._pulls = graph.user_priority is None
        # Per task its layer (the key's name), per layer its largest result so far: a
        # pending task's output is guessed from its layer's (_consumer_cone).
        self._layer = _layers(graph.keys) if self._pulls else []
        self._layer_bytes = [math.nan] * (max(self._layer, default=-1) + 1)
        # Per group, its largest result so far: a layer none of whose tasks ran yet is sized
        # by its group's (a resample's week straddling two chunks is a layer of its own, of
        # two tasks: the first is always unsized when its chunk is walked).
        self._group_bytes = [math.nan] * len(graph.group_names) if self._pulls else []
        self._chunk_bytes = graph.layer_size.tolist() if self._pulls else []  # (metadata)
        self._pull_misses = [0] * len(self._layer_bytes)  # per layer, in a row
        # Results whose cone was refused on sizes guessed, and the layers sized then: they are
        # walked again at a pull once another layer is sized (_pull_consumers).
        self._retry: list[int] = []
        self._layers_sized = 0
        self._retry_sized = 0
        self._guessed = False  # the last cone walked read a size not measured
        self._group = graph.group.tolist()
        # Per group, its tasks (found when policy.frees_slot first asks: _reduces).
        self._group_tasks: dict[int, list] = {}
        # Named concurrency limits (annotations): tasks counting against a full limit are
        # withheld in self.limits, apart from the ready heaps (they block nothing else).
        self.limits = Limits(graph.limits)
        self._limited = graph.limited if self.limits else {}
        self._output = bytearray(n)
        for i in graph.outputs.tolist():
            self._output[i] = 1

        self.state = bytearray(n)  # WAITING
        ndeps = np.diff(graph.dep_ptr)
        self._ndeps = ndeps.tolist()
        # A consumer's inputs as the policy counts them, in both bodies: data embedded in
        # the graph (``graph.constant``: a DataNode, a store handle) is not a second input
        # (the plugin's ``single`` and ``_chained``: distributed/hooks.py, tasks.py).
        # ``_single``: one input, or one besides constants (a read of an open's handle and
        # a DataNode).
        owner = np.repeat(np.arange(n), ndeps)
        data_in = np.bincount(owner, weights=~graph.constant[graph.dep_idx], minlength=n)
        single = (ndeps == 1) | (data_in == 1)
        # Of a task with several data inputs, an input is no second input
        # (``policy.second_input``, as the plugin's ``_one_data_input``) when computed from
        # nothing and tiny beside what roots load (an indexer: known once it ran, see
        # _is_single) or computed from another input of the same task alone (a mask).
        # i: (inputs counted, indexers from _second_x[a:b])
        self._second: dict[int, tuple[int, int, int]] = {}
        self._second_x: list[int] = []
        multi = np.flatnonzero(data_in >= 2)
        if len(multi):
            self._second_inputs(graph, owner, data_in, multi, single)
        self._single = single.tolist()
        # Tasks whose result a single-input task takes on (open -> read): a root's result
        # continues there as data in flight however small it is (a file handle).
        chained = np.zeros(n, bool)
        chained[graph.dep_idx[data_in[owner] <= 1]] = True
        self._chained = chained.tolist().__getitem__  # (books.root_holds_data's chained(i))
        # Joins of pieces of one array (a rechunk's merge): their inputs' bytes are passed
        # to the books, as the plugin passes them (``tasks._pieces``).
        self._joins = graph.joins().tolist()
        self._constant = graph.constant.tolist()
        self.waiting_on = list(self._ndeps)
        self._in_memory: list[set[int]] = [set() for _ in self.workers]  # spill candidates
        self.needed_by = np.diff(graph.dependent_ptr).tolist()
        self.where = [-1] * n
        self.nbytes = [0] * n
        # Ready tasks: non-roots by priority; roots by priority (withheld until admitted).
        self._ready: list[tuple[int, int]] = []
        self._ready_roots: list[tuple[int, int]] = []
        # Counters, readable from other threads (ints are atomic) for progress bars.
        self.n_waiting = n
        self.n_ready = 0
        self.n_running = 0
        self.n_finished = 0
        self.failed: int | None = None
        self.stopped = False  # set by cancel(): nothing new starts
        self.broken: BaseException | None = None  # an exception left the state half-changed
        self.peak_roots_held = 0
        self.roots_held = 0
        self.bytes_spilled = 0
        self.bytes_loaded = 0
        # Running a root again instead of spilling its output: per group, set by the body
        # from what it measured (a read's seconds per byte against the disk's round trip).
        self.rerun = [False] * len(graph.group_names)
        self.recomputed = bytearray(n)  # 1 once a task's output was dropped (it runs again)
        self.views = bytearray(n)  # 1: the body saw the result is a view of an input's
        # The memory a result lives in, as the body names it (0: its own, or unknown):
        # results naming one buffer free memory only together, however far apart in the
        # graph (a pad's slices of a chunk, two hops below it). Per buffer, how many
        # results naming it are held in memory.
        self.buffer = [0] * n
        self._holders: dict[int, set[int]] = {}
        # Per buffer, the ceiling taken by its holders that left memory while it lived on
        # (_frees_nothing); the body clears it when it sets the ceiling from a measurement.
        self._taken: dict[int, float] = {}
        self.ready_in = [0] * len(graph.group_names)  # READY tasks per group
        # Room for running tasks, set by a body that measures memory: per group, the bytes a
        # task needs while it runs besides its inputs (its output and temporaries); per
        # worker, what held results plus running tasks' needs may reach: a task starting
        # makes room within it (_make_room); inf: no such bound.
        self.need = [0.0] * len(graph.group_names)
        self.ceiling = [math.inf] * len(self.workers)
        # A need measured on a group's small tasks says nothing about its large ones (a
        # pad's one-row edges ran first: their 32 kB need let a 64 MB difference start
        # beside a full budget, 1.12x the limit). ``sized``: per group, the input bytes up
        # to which ``need`` was measured (inf: for every task); a task with more inputs
        # needs ``grow`` times them, at most ``grow_cap``, when that is more.
        self.sized = [math.inf] * len(graph.group_names)
        self.grow = 0.0
        self.grow_cap = 0.0
        # Per task, bytes it needs at least besides its inputs, known before it runs (a
        # concatenation's output, from chunk metadata: measure.concatenations). Guessed
        # from its group's first chunks, topk's 128 MB merge was given 58 MB and let a root
        # run beside it: 1.10x the limit named for it.
        self.least: dict[int, float] = {}
        # Per group, 1 while nothing sizes its tasks (set by a body that measures memory: no
        # chunk metadata, no inputs, none of its tasks finished): such a task starts only
        # while no other task of its group runs (``_probes``), one probe per group until it
        # is measured. (Four 60 MB delayed temporaries started at once, before any was
        # measured: 2.2-2.4x a 100 MB limit. One probe in all, not per group, ran distinct
        # one-task groups one after another: every delayed call of its own function.)
        self.unknown = bytearray(len(graph.group_names))
        self._probes: dict[int, int] = {}  # running task that started unknown -> its group
        # Below the budget, roots cheap to run again are dropped down to this (room for the
        # tasks about to start, made while their inputs can still be dropped, not spilled).
        self.keep = [math.inf] * len(self.workers)
        self._running_need = [0.0] * len(self.workers)
        self._needs: dict[int, float] = {}  # running task -> the need it started with
        # The fewer-at-once gate (_fill): how often a task waited beside a running one, and
        # by how many bytes the latest one was short of the ceiling (for the run's stats).
        self.gate_refusals = 0
        self.gate_short = 0.0
        # Threads past those the body fits to memory (``fit``, per worker; the worker's
        # ``threads`` are all it has): such a task starts only where it fits beside the
        # running ones AND, once they all ended, their results and its own (``out``: per
        # group, the largest result so far; inf: none yet) leave ``after`` free, the room
        # the next task needs, so that it needs no spill (_fits_after). Below vorticity's
        # working set one thread fits, but a chunk's read fits beside a store.
        self.fit = [math.inf] * len(self.workers)
        self.out = [math.inf] * len(graph.group_names)
        self.after = 0.0
        self.extra_waits = 0  # tasks that waited so for a thread past those fitted
        # The limit holds fewer of the tasks about to run than there are threads, by measured
        # needs, yet two of the neediest (local._below_working_set, at each ask):
        # _fits_after's outlasting rule applies only then.
        self.below = True
        self._held_back: tuple = ()  # (stimulus, worker) of the last root counted so
        self.bytes_dropped = 0
        self.n_recomputed = 0
        self._returning: set[int] = set()  # dropped roots not back in memory yet
        self._dropped_in: dict[int, int] = {}  # waiting task -> its inputs in _returning
        # Moves: (task, start, finish, stimulus id); shares its bound with the books' log.
        self.log: deque = deque(maxlen=log_size)
        self._stimulus = 0
        self._touched: list[int] = []
        # TRANSITIONS as a table indexed [start][finish]: cheaper than hashing a tuple.
        if validate:
            self._transition = self._transition_validated
        self._moves = [[None] * len(State) for _ in State]
        for (a, b), name in TRANSITIONS.items():
            self._moves[a][b] = getattr(self, name)

    # -- public -------------------------------------------------------------------------
    @property
    def done(self) -> bool:
        return self.n_finished == len(self.graph)

    @property
    def spilled(self) -> bytearray:
        """1 where a result is held on disk (read-only view, kept for older callers)."""
        return bytearray(s == SPILLED for s in self.state)

    def start(self) -> list:
        return self._step(None)

    def handle(self, event) -> list:
        return self.handle_many((event,))

    def cancel(self) -> None:
        """Stop handing out work (Ctrl-C): running tasks may still report back."""
        self.stopped = True

    def handle_many(self, events) -> list:
        """Several events, one fill: cheaper for batches of completions."""
        return self._step(events)

    def story(self, task) -> list:
        """Moves and decisions concerning ``task`` (an index or a key), oldest first."""
        i = task if isinstance(task, int) and 0 <= task < len(self.graph) else None
        if i is None:
            i = self.graph.keys.index(task)
        moves = [
            (e[3], STATE_NAMES[e[1]], STATE_NAMES[e[2]]) for e in self.log if e[0] == i
        ]
        return moves + [e for e in self.books.story(i)]

    # -- one stimulus ------------------------------------------------------------------
    def _step(self, events) -> list:
        if self.broken is not None:
            raise RuntimeError("the scheduler's state broke earlier; start a new one") from (
                self.broken
            )
        self._stimulus += 1
        sid = self._stimulus
        actions: list = []
        try:
            if events is None:
                for i, deps in enumerate(self.waiting_on):
                    if deps == 0:
                        self._transition(i, READY, sid)
            else:
                for event in events:
                    t = type(event)
                    if t is Finished:
                        self._transition(event.task, MEMORY, sid, actions, event.nbytes)
                    elif t is Failed:
                        self._transition(event.task, ERRED, sid, actions)
                    else:
                        raise TypeError(f"unknown event {event!r}")
            if self.failed is None and not self.stopped:
                self._settle(sid, actions)
        except InvalidTransition:
            raise  # refused before any change: the state is intact
        except TypeError:
            raise
        except BaseException as exc:
            self.broken = exc
            raise
        if self.validate:
            self._validate_touched()
        return actions

    def _transition(self, i: int, finish: int, sid: int, actions=None, arg=None) -> None:
        start = self.state[i]
        move = self._moves[start][finish]
        if move is None:
            raise InvalidTransition(
                self.graph.keys[i], STATE_NAMES[start], STATE_NAMES[finish], self.story(i)
            )
        move(i, sid, actions, arg)
        self.log.append((i, start, finish, sid))

    def _transition_validated(self, i: int, finish: int, sid: int, actions=None, arg=None) -> None:
        Scheduler._transition(self, i, finish, sid, actions, arg)
        self._touched.append(i)

    def _settle(self, sid: int, actions: list) -> None:
        """Spill what is over budget, then fill free threads; again while the fill started
        something (its loads may need room; the room a spill made may admit a root). Ends
        in a state where an empty stimulus has nothing to do."""
        if not self._may_spill:  # no finite budget: nothing to spill, one fill settles
            self._fill(sid, actions)
            return
        self._spill_over_budget(sid, actions)
        while True:
            n = len(actions)
            self._fill(sid, actions)
            if len(actions) == n:
                return  # nothing started: a fill again would start nothing either
            n = len(actions)
            self._spill_over_budget(sid, actions)
            if len(actions) == n:
                return  # nothing spilled: no room made for a withheld root

    # -- transitions --------------------------------------------------------------------
    def _make_ready(self, i: int, sid: int, actions, arg) -> None:
        self.state[i] = READY
        self.n_waiting -= 1
        self.n_ready += 1
        self.ready_in[self._group[i]] += 1
        if self._root[i]:
            heapq.heappush(self._ready_roots, (self._priority[i], i))
        else:
            heapq.heappush(self._ready, (self._priority[i], i))

    def _run(self, i: int, sid: int, actions: list, w: int) -> None:
        state = self.state
        for c in range(self._dep_ptr[i], self._dep_ptr[i + 1]):
            d = self._dep_idx[c]
            if state[d] == SPILLED:
                self._transition(d, MEMORY, sid, actions)
        state[i] = PROCESSING
        self.where[i] = w
        self.n_ready -= 1
        self.ready_in[self._group[i]] -= 1
        self.n_running += 1
        if self._may_spill:
            need = self._task_need(i)
            self._needs[i] = need
            self._running_need[w] += need
        if self.unknown[self._group[i]]:
            self._probes[i] = self._group[i]
        self.books.on_run(
            i, w, self._root[i], self._group[i], self._known_size[i], sid
        )
        if self._limited:
            names = self._limited.get(i)
            if names:
                self.limits.on_run(i, names)
        actions.append(Run(i, w))

    def _finished(self, i: int, sid: int, actions: list, nbytes: int) -> None:
        w = self.where[i]
        worker = self.workers[w]
        self.state[i] = MEMORY
        self.n_running -= 1
        if self._may_spill:
            self._running_need[w] -= self._needs.pop(i)
        self._probes.pop(i, None)
        self.n_finished += 1
        self.nbytes[i] = nbytes
        worker.held += nbytes
        if self._layer:
            n, l = self._layer_bytes, self._layer[i]
            if not nbytes <= n[l]:  # (NaN: the first)
                if n[l] != n[l]:
                    self._layers_sized += 1
                n[l] = nbytes
            n, l = self._group_bytes, self._group[i]
            if not nbytes <= n[l]:
                n[l] = nbytes
        b = self.buffer[i]
        if b:
            self._holders.setdefault(b, set()).add(i)
        if self._limited and i in self._limited:
            self._limit_frees(i)
        self._in_memory[w].add(i)
        p, q = self._dep_ptr[i], self._dep_ptr[i + 1]
        needed_by = self.needed_by
        feeds = needed_by[i] > 0
        if self._root[i]:  # a tiny root result is no data in flight (weighted's stores)
            feeds = self.books.root_holds_data(i, self._group[i], nbytes, feeds, self._chained)
        carriers = self.books.carrying  # none: no input carries anything, nothing to ask
        single = self._single[i]
        if not single and carriers and self._second:
            s = self._second.get(i)
            single = s is not None and self._one_of(s)
        self.books.on_finished(
            i, nbytes, self._dep_idx[p:q] if carriers else (), single,
            feeds, sid, self._pieces(i) if feeds and self._joins[i] else math.nan,
            self._read_on(i) if carriers and single else None,
        )  # fmt: skip
        if self._root[i]:
            self.roots_held += 1
            if self.roots_held > self.peak_roots_held:
                self.peak_roots_held = self.roots_held
        held = worker.held + worker.estimated
        if held > worker.peak_held:
            worker.peak_held = held
        # Inputs nobody else needs go now; then this result, if nothing needs it.
        self._done_with_inputs(i, sid, actions)
        if needed_by[i] == 0 and not self._output[i]:
            self._transition(i, RELEASED, sid, actions)
        elif self._pulls and needed_by[i] > 1:
            self._pull_consumers(i, sid)
        waiting_on = self.waiting_on
        transition = self._transition
        if self._returning:
            if i in self._returning:  # back after a drop: its dependents count it again
                self._back(i)
            dropped_in = self._dropped_in
            state = self.state
            for c in range(self._dependent_ptr[i], self._dependent_ptr[i + 1]):
                d = self._dependent_idx[c]
                if state[d] != WAITING:
                    continue  # ran before this result was dropped and run again
                waiting_on[d] -= 1
                if waiting_on[d] == 0:
                    transition(d, READY, sid)
                elif waiting_on[d] == dropped_in.get(d):
                    self._wake_inputs(d, sid)
            return
        for c in range(self._dependent_ptr[i], self._dependent_ptr[i + 1]):
            d = self._dependent_idx[c]
            waiting_on[d] -= 1
            if waiting_on[d] == 0:
                transition(d, READY, sid)

    def _second_inputs(self, graph, owner, data_in, multi, single) -> None:
        """Fill ``_second`` and ``single`` for tasks ``multi`` (two or more data inputs):
        per input, is it computed from nothing, or from another input of the same task
        alone (its one data input is one); ``policy.second_input`` decides."""
        n = len(data_in)
        dep_idx, dep_ptr, constant = graph.dep_idx, graph.dep_ptr, graph.constant
        # the one data input of each task that has one (-1: none or several)
        sole = np.full(n, -1, np.int64)
        data_edge = ~constant[dep_idx]
        one = data_edge & (data_in[owner] == 1)
        sole[owner[one]] = dep_idx[one]
        edges = np.flatnonzero(np.isin(owner, multi) & data_edge)
        o, x = owner[edges].astype(np.int64), dep_idx[edges].astype(np.int64)
        nothing = dep_ptr[x + 1] == dep_ptr[x]
        s = sole[x]
        derived = s >= 0
        if derived.any():  # is s another input of the same task o
            pairs = np.sort(o * n + x)
            q = o[derived] * n + s[derived]
            at = np.minimum(np.searchsorted(pairs, q), len(pairs) - 1)
            derived[derived] = pairs[at] == q
        counted = np.bincount(o[~nothing & ~derived], minlength=n)
        maybe = nothing & (counted[o] <= 1)
        om = o[maybe]  # (grouped by task: dep_idx runs task by task)
        ids, starts = np.unique(om, return_index=True)
        ends = np.append(starts[1:], len(om))
        self._second_x = x[maybe].tolist()
        self._second = dict(zip(ids.tolist(), zip(counted[ids].tolist(), starts.tolist(),
                                                  ends.tolist())))  # fmt: skip
        fixed = (counted[multi] == 1) & ~np.isin(multi, ids)
        single[multi[fixed]] = True

    def _is_single(self, i: int) -> bool:
        """Has task i one data input (``policy.second_input``)? An indexer computed from
        nothing counts while it has not run (the plugin sees ``nbytes`` -1)."""
        if self._single[i]:
            return True
        s = self._second.get(i)
        return s is not None and self._one_of(s)

    def _one_of(self, s) -> bool:
        """``_is_single`` of a task with ``_second`` entry s."""
        k, a, b = s
        state, nbytes, roots_max = self.state, self.nbytes, self.books.roots_max
        for x in self._second_x[a:b]:
            if second_input(True, nbytes[x] if state[x] > PROCESSING else -1, False, roots_max):
                k += 1
                if k > 1:
                    return False
        return k == 1

    def _read_on(self, i: int):
        """``books.on_finished``'s ``read_on`` for single-input task i (policy.read_on): the
        core runs its ready tasks in priority order, so a reader ordered after the next root
        to load (the head of the withheld roots) keeps nothing in flight."""
        single, state = self._is_single if self._second else self._single.__getitem__, self.state
        roots = self._ready_roots
        return lambda x: read_on(
            self._dependents(x), i, single,
            lambda d: state[d] in (WAITING, READY, PROCESSING),
            self._priority.__getitem__, roots[0][0] if roots else math.inf,
        )  # fmt: skip

    def _leads_on(self, i: int) -> bool:
        """``books.leads_on``: does root i's result, tiny beside a larger root result now,
        lead to data anyway (the books then leave its slot)? When a reader of it is a root
        (a handle its loads read) or is about to run: its other inputs all finished,
        running, constants, or ready and no root (none still to admit), as the plugin's
        hooks._read_soon (dask's "processing" is the core's running, or ready and no root:
        a root still ready waits for admission)."""
        state, root, constant = self.state, self._root, self._constant
        readers = self._dependents(i)
        for d in readers:
            if root[d]:
                return True
        for d in readers:
            if state[d] in _FINISHED or state[d] == ERRED:
                continue
            for x in self._dependencies(d):
                s = state[x]
                if x != i and not constant[x] and s != MEMORY and s != PROCESSING \
                        and s != SPILLED and (s != READY or root[x]):  # fmt: skip
                    break
            else:
                return True
        return False

    def _pieces(self, i: int) -> float:
        """The bytes of join i's inputs together, constants aside (``books.on_finished``'s
        ``pieces``); NaN for a root (it loads, it joins nothing)."""
        if self._root[i]:
            return math.nan
        nbytes, constant = self.nbytes, self._constant
        return sum(nbytes[d] for d in self._dependencies(i) if not constant[d])

    def _done_with_inputs(self, i: int, sid: int, actions: list) -> None:
        needed_by = self.needed_by
        for c in range(self._dep_ptr[i], self._dep_ptr[i + 1]):
            d = self._dep_idx[c]
            needed_by[d] -= 1
            if needed_by[d] == 0 and not self._output[d]:
                self._transition(d, RELEASED, sid, actions)

    def _release(self, i: int, sid: int, actions: list, arg=None) -> None:
        w = self.where[i]
        if self.state[i] == SPILLED:
            self.workers[w].spilled -= self.nbytes[i]
        else:
            self._leave_memory(i, w)
        self.state[i] = RELEASED
        if self._root[i]:
            self.roots_held -= 1
            self.books.on_released(i, sid)  # only a root's output or its chain's carries
        elif self.books.carrying:
            self.books.on_released(i, sid)
        actions.append(Release(i, w))

    def _failed(self, i: int, sid: int, actions: list, arg=None) -> None:
        self.state[i] = ERRED
        self.n_running -= 1
        if self._may_spill:
            self._running_need[self.where[i]] -= self._needs.pop(i)
        self._probes.pop(i, None)
        if self._limited and i in self._limited:
            self._limit_frees(i)
        self.books.on_failed(i, self._dep_idx[self._dep_ptr[i] : self._dep_ptr[i + 1]], sid)
        self._done_with_inputs(i, sid, actions)  # nothing will run again; free what it held
        if self.failed is None:
            self.failed = i

    # -- choice -------------------------------------------------------------------------
    def _fill(self, sid: int, actions: list) -> None:
        """Give every free slot its best admissible task, in strict priority order.

        A worker stops when the head root is withheld there and nothing else is ready. When
        a later worker then takes that head, the next head may be admissible on the earlier
        one: blocked workers are visited again until the head stops changing."""
        ready, roots = self._ready, self._ready_roots
        workers = self.workers
        limited = self._limited
        visit = range(len(workers))
        while True:
            blocked = []
            head = roots[0] if roots else None
            for w in visit:
                worker = workers[w]
                while worker.processing < worker.threads:
                    best = ready[0][0] if ready else math.inf
                    # Over budget, an idle worker runs a ready non-root before a dropped
                    # root that only the progress rule would admit (its earlier priority
                    # came before its consumers': all would run first and be spilled).
                    admitted = bool(roots) and roots[0][0] < best and self._admit(
                        w, roots[0][1], sid, not (ready and self.recomputed[roots[0][1]]))
                    if admitted and self._root_fits(w, roots[0][1]):
                        p, i = heapq.heappop(roots)
                    elif ready:
                        p, i = self._pop_ready()
                    else:
                        if admitted and worker.processing >= self.fit[w]:
                            self.extra_waits += 1  # a thread past those fitted: not the gate's
                        elif admitted and self._held_back != (sid, w):
                            # Memory, not the root count, leaves this thread idle beside a
                            # running task: the gate's doing, counted as its (uncounted,
                            # 250 MB of 108 MB tasks was said to fit 2 threads in 1 run of 7);
                            # once per stimulus (_fill runs again as tasks settle).
                            self._held_back = (sid, w)
                            self.gate_refusals += 1
                            self.gate_short = self._room_short(w, roots[0][1])
                        if roots:
                            blocked.append(w)
                        break  # nothing ready, or only withheld roots
                    if limited and i in limited and self._limit_holds(i, p, sid):
                        continue  # kept aside until its limit frees; look further
                    if self._probes and self.unknown[g := self._group[i]] and (
                            g in self._probes.values()):
                        # Nothing sizes it and a task of its group runs: it waits for that
                        # one's measurement rather than pass the limit beside it.
                        heapq.heappush(roots if self._root[i] else ready, (p, i))
                        break
                    if self.ceiling[w] < math.inf:
                        if worker.processing >= self.fit[w] and not self._fits_after(w, i):
                            heapq.heappush(roots if self._root[i] else ready, (p, i))
                            self.extra_waits += 1
                            break
                        if worker.processing and (short := self._room_short(w, i)) > 0:
                            # Fewer at once rather than spill to start a second task: what
                            # it would spill is the input of the tasks next in line (at
                            # 300 MB vorticity and rechunk-add wrote 32-480 MB so, now 0).
                            heapq.heappush(roots if self._root[i] else ready, (p, i))
                            self.gate_refusals += 1
                            self.gate_short = short
                            break
                        self._make_room(w, i, sid, actions)
                    self._transition(i, PROCESSING, sid, actions, w)
            if not blocked or not roots or roots[0] == head:
                return
            visit = blocked

    def _pop_ready(self) -> tuple[int, int]:
        """The best ready non-root; but while it would read an input back from disk, the
        best one whose inputs are all in memory before it: what is in memory is used before
        something is read back to evict it (a rechunk's splits of three 128 MB pieces,
        interleaved by priority where one fits: each read its piece back and wrote another,
        3.6-4.5 GB written for 384 MB of input)."""
        ready, state = self._ready, self.state
        i = ready[0][1]
        if all(state[d] != SPILLED for d in self._dependencies(i)):
            return heapq.heappop(ready)
        # The heap's entries in priority order, the first LOOK_AHEAD of them at most (a side
        # heap of positions: sorting the whole heap per pop took a 24k-task anomaly's core
        # from 2.2 to 40.8 s, review16).
        side = [(ready[0], 0)]
        for _ in range(LOOK_AHEAD):
            if not side:
                break
            entry, k = heapq.heappop(side)
            if all(state[d] == MEMORY for d in self._dependencies(entry[1])):
                _heap_remove(ready, k)
                return entry
            for c in (2 * k + 1, 2 * k + 2):
                if c < len(ready):
                    heapq.heappush(side, (ready[c], c))
        return heapq.heappop(ready)

    def _pull_consumers(self, x: int, sid: int) -> None:
        """Result x is in memory; when every task still needing it can finish from results
        in memory (no root to load, nothing to read back) and what they leave held is far
        less than x, they run next, with the tasks they wait for, in their own order: x is
        then freed, not held (or spilled) until the order comes back to each of them. (A
        rolling mean's windowed sums, 19.2 MB each, are read by 9 pieces that dask.order
        runs one per pass over the time axis: all 20 sums were held for 8 passes and, below
        384 MB, spilled and read back: 1.9x the input written at 200 MB.)"""
        roots = self._ready_roots
        if not roots:
            return  # nothing would be loaded before x's consumers: their order stands
        misses, layer = self._pull_misses, self._layer[x]
        if misses[layer] < PULL_MISSES:
            if self._pull(x, sid):
                misses[layer] = 0
            else:
                misses[layer] += 1
        # Results whose cone was refused on sizes guessed, not measured (the first chunks
        # of a resample, before any of their weeks ran), are walked again once a layer more
        # is sized: they were held to the end of the run, 38 MB of the 130 MB held.
        if self._retry and self._retry_sized != self._layers_sized:
            self._retry_sized = self._layers_sized
            retry, self._retry = self._retry, []
            state, needed_by = self.state, self.needed_by
            for y in retry:
                if state[y] == MEMORY and needed_by[y] and roots:
                    self._pull(y, sid)

    def _pull(self, x: int, sid: int) -> bool:
        """Bring x's consumer cone forward (_pull_consumers); False if it has none."""
        self._guessed = False
        cone = self._consumer_cone(x)
        if cone is None:
            if self._guessed and len(self._retry) < PULL_MISSES:
                self._retry.append(x)
                self._retry_sized = self._layers_sized
            return False
        priority = self._priority
        roots = self._ready_roots
        if roots[0][0] > max(priority[t] for t in cone):
            return True  # they run before the next root in their own order already
        changed = {}
        base, m = priority[x], len(cone) + 1
        for r, t in enumerate(sorted(cone, key=priority.__getitem__), 1):
            p = base + r / m  # after x, before anything x came before (dask.order's ints)
            if p < priority[t]:
                priority[t] = changed[t] = p
        if not changed:
            return True
        self.books.log.append((x, "pulled", "consumers", len(changed), sid))
        ready = self._ready
        if any(t in changed for _, t in ready):
            ready[:] = [(changed.get(t, p), t) for p, t in ready]
            heapq.heapify(ready)
        return True

    def _consumer_cone(self, x: int) -> set | None:
        """The tasks to run for every task needing held result x to finish: down through
        those whose outputs are not much smaller than their share of x (a view or a copy
        of a piece of it frees nothing yet), then up through the pending tasks these wait
        for. None if one is a root, an output or under a limit, if there are more than
        ``PULL_MOST``, or if the results they leave in memory, sized by their layers'
        largest so far, are not known or come to more than half of x: those read by tasks
        outside, and inputs they read back from disk that tasks outside read too (an input
        read back for them alone is read back as well when they run in their turn).
        Where there is none, the near cone (_near_cone)."""
        state, layer = self.state, self._layer
        sized = self._layer_bytes.__getitem__
        consumers = [d for d in self._dependents(x) if state[d] == WAITING or state[d] == READY]
        if not consumers:
            return None  # (a result walked again: its consumers all started)
        small = self.nbytes[x] / len(consumers) / 4
        cone: set[int] = set()
        for stack, down in ((list(consumers), True), ([], False)):
            if not down:  # up from every task found going down
                stack = [e for t in cone for e in self._dependencies(t)
                         if state[e] == WAITING or state[e] == READY]  # fmt: skip
            while stack:
                t = stack.pop()
                if t in cone:
                    continue
                if self._root[t] or self._output[t] or t in self._limited or (
                        len(cone) == PULL_MOST):  # fmt: skip
                    return self._near_cone(x, consumers)
                cone.add(t)
                if down:
                    if not sized(layer[t]) <= small:  # (NaN: unknown, not small)
                        stack.extend(d for d in self._dependents(t) if state[d] == WAITING)
                    continue
                for e in self._dependencies(t):
                    s = state[e]
                    if s == WAITING or s == READY:
                        stack.append(e)
        left = self._left(cone, lambda t: sized(layer[t]), -math.inf)
        return cone if left <= self.nbytes[x] / 2 else self._near_cone(x, consumers)  # (NaN: no)

    def _near_cone(self, x: int, consumers: list) -> set | None:
        """Where no task below x's consumers ends their way down (a resample's chunk feeds
        the global mean and its weeks, and both end in the std over every chunk, behind all
        roots): the consumers, the pending tasks they wait for, and below them the tasks
        that can run from those and the results in memory (a week's two pieces of two
        chunks, combined). None on the far cone's grounds, except that what it leaves is
        counted without the tasks that come before the next root in their own order: they
        leave it with no pull too. (dask.order put a resample's weeks after every root
        for the global mean's sake: each chunk, 19.2 MB, was held until its weeks ran,
        1.3x threaded's peak RSS under the default limit.)"""
        state = self.state
        cone: set[int] = set()
        stack = list(consumers)
        while stack:
            t = stack.pop()
            if t in cone:
                continue
            if self._root[t] or self._output[t] or t in self._limited or len(cone) == PULL_MOST:
                return None
            cone.add(t)
            for e in self._dependencies(t):
                s = state[e]
                if s == WAITING or s == READY:
                    stack.append(e)
        layer, group = self._layer, self._group
        by_layer, by_group, by_chunks = self._layer_bytes, self._group_bytes, self._chunk_bytes

        def sized(t):  # a layer none of whose tasks ran yet: its group's, or its chunks'
            n = by_layer[layer[t]]
            if n != n:
                self._guessed = True
                n = by_group[group[t]]
            return by_chunks[t] if n != n else n

        stack = list(cone)
        while stack and len(cone) < PULL_MOST:
            for d in self._dependents(stack.pop()):
                if d in cone or state[d] != WAITING or self._root[d] or self._output[d] or (
                        d in self._limited) or sized(d) != sized(d):  # fmt: skip
                    continue  # (unsized: left out, what its inputs leave is counted)
                if all(e in cone or state[e] == MEMORY or state[e] == PROCESSING
                       for e in self._dependencies(d)):  # fmt: skip
                    cone.add(d)
                    stack.append(d)
        # Under half of x, strictly: pieces of x (copies, views) that make x together leave
        # half of it at least, however many there are, with one of them run first anyway
        # (a rechunk's two halves of a chunk: the chunk cheap to read again is dropped and
        # read again, not held as its later half until that half's merge).
        left = self._left(cone, sized, self._ready_roots[0][0])
        return cone if left < self.nbytes[x] / 2 else None  # (NaN: no)

    def _left(self, cone: set, sized, first: float) -> float:
        """What the tasks of a cone leave in memory (_consumer_cone), but those ordered
        before priority ``first``; NaN where a dropped input would run again first."""
        state, nbytes, priority = self.state, self.nbytes, self._priority
        left = 0.0
        read: set[int] = set()
        for t in cone:
            for e in self._dependencies(t):
                s = state[e]
                if s == SPILLED:
                    read.add(e)
                elif s != MEMORY and s != PROCESSING and e not in cone:
                    return math.nan  # (dropped: it runs again first)
            if priority[t] > first and any(d not in cone for d in self._dependents(t)):
                left += sized(t)
        for e in read:
            if any(d not in cone and state[d] in _PENDING for d in self._dependents(e)):
                left += nbytes[e]
        return left

    def _root_fits(self, w: int, i: int) -> bool:
        """Does root i fit beside what worker w holds and runs, without spilling? A root
        that does not waits for consumers to free memory (spilling to start it thrashes: an
        anomaly's dropped chunks, read again, each spilled the one read before the task
        using it ran), unless the worker is idle with no other task ready (progress)."""
        if self._wanted(w, i) <= self.ceiling[w]:
            return True
        return not self.workers[w].processing and not self._ready  # progress: nothing else to run

    def _make_room(self, w: int, i: int, sid: int, actions: list) -> None:
        """Task i is about to start on worker w: held results, the inputs it reads back,
        running tasks' needs and its own must stay within the worker's ceiling. Spill
        results other than i's inputs, furthest next use first, until they do (as far as
        they can: one task always starts). Only the first task on an idle worker makes
        room so: beside a running task, one that does not fit waits (``_fill``)."""
        excess = self._room_short(w, i)
        if excess > 0:
            self._spill(w, excess, sid, actions, set(self._dependencies(i)), waking=True)

    def _room_short(self, w: int, i: int) -> float:
        """Bytes by which task i, its spilled inputs read back, would pass w's ceiling."""
        want = self._wanted(w, i)
        state, nbytes = self.state, self.nbytes
        for d in self._dependencies(i):
            if state[d] == SPILLED:
                want += nbytes[d]
        return want - self.ceiling[w]

    def _fits_after(self, w: int, i: int) -> bool:
        """May task i start on a thread past those fitted to memory on worker w? Only where
        it fits now, and where what w holds, the results of its running tasks and i's own,
        and ``after`` stay within the ceiling (inputs the tasks free are not counted). A task
        needing more than twice what the running ones need (it outlasts them) must also
        leave ``after`` free beside them now: else the fitted thread, free again first,
        waits for it (vorticity at 170 MB: a chunk's read started beside the slices held
        the store back for the whole read, and the next step's two reads, which fit
        together, ran one at a time: 3% of the reads' seconds paired, 48% with this rule,
        70% with local._recheck too)."""
        if self._room_short(w, i) > 0:
            return False
        if self.below and 2 * self._running_need[w] < self._task_need(i) and (
                self._wanted(w, i) + self.after > self.ceiling[w]):  # fmt: skip
            return False  # it would outlast the running tasks and hold the next one back
        out, group = self.out, self._group
        held = self.workers[w].held + out[group[i]] + self.after
        for t in self._needs:  # the running tasks (one worker in the thread runtime)
            if self.where[t] == w:
                held += out[group[t]]
        return held <= self.ceiling[w]

    def _wanted(self, w: int, i: int) -> float:
        """What worker w holds and its running tasks need, plus what task i needs to run."""
        return self.workers[w].held + self._running_need[w] + self._task_need(i)

    def _task_need(self, i: int) -> float:
        """Bytes task i needs while it runs besides its inputs: its group's need, or, when
        its inputs are larger than those the need was measured with (by a quarter: sizes of
        one chunk vary a little), ``grow`` times its inputs, at most ``grow_cap``; when
        they are under ``SMALLER`` of those, the need in proportion to its inputs. Never
        less than ``least``."""
        g = self._group[i]
        need = self.need[g]
        sized = self.sized[g]
        if sized < math.inf and self._ndeps[i]:
            nbytes = self.nbytes
            inputs = 0
            for c in range(self._dep_ptr[i], self._dep_ptr[i + 1]):
                inputs += nbytes[self._dep_idx[c]]
            if inputs > 1.25 * sized:
                need = max(need, min(self.grow_cap, self.grow * inputs))
            elif inputs < SMALLER * sized:
                need = need * inputs / sized
        return max(need, self.least.get(i, 0.0)) if self.least else need

    def _limit_holds(self, i: int, p: int, sid: int) -> bool:
        """Is ready task i withheld by a full concurrency limit? Then it is kept aside in
        ``self.limits`` (still READY) until a task of that limit ends, and offered again at
        the priority it was ready with, p (a dropped root's is its consumer's, not its own)."""
        names = self._limited[i]
        name = self.limits.full(names)
        if name is None:
            return False
        self.limits.hold(name, p, i, names)
        self.books.log.append((i, "withheld", "limit", name, sid))
        return True

    def _limit_frees(self, i: int) -> None:
        """Task i ended: the tasks its limits withheld are offered again, best first."""
        for p, t in self.limits.on_done(i):
            heapq.heappush(self._ready_roots if self._root[t] else self._ready, (p, t))

    def _admit(self, w: int, i: int, sid: int, progress: bool = True) -> bool:
        """May root i start on worker w? (A root blocked by memory waits for consumers to
        free some: making room by spilling to start it early thrashes once the working set
        exceeds the budget, a write and a read per chunk to keep one more thread busy.)"""
        return self.books.admits(
            w, i, self._known_size[i], self._group[i],
            lambda: self._completes_consumer(i, w, True), sid, progress, waiting=self._waiting(w),
        )

    def _waiting(self, w: int) -> int:
        """Ready tasks that would wait for a thread if a root took one of w's free threads
        (``policy.may_admit_root``'s ``queued``): those beyond w's other free threads. Only
        the threads fitted to memory count (``fit``): a thread past them starts a task only
        where it fits (_fits_after), and counted free it let roots past the count ahead of
        the ready tasks that free them (review19: 188 of 6,000 random runs decided unlike a
        core given the fitted threads alone, though every extra thread was refused)."""
        worker = self.workers[w]
        free = min(worker.threads, self.fit[w]) - worker.processing
        return max(0, len(self._ready) - (free - 1))

    def _completes_consumer(self, i: int, w: int, frees: bool = False) -> bool:
        """Would root i's data complete a consumer on worker w (``meeting_partners``'
        ``complete``, the plugin's rule too)? With the sizes the plugin's walk reads too
        (here the layer's chunk metadata, as ``find_roots``): without them a stencil's
        block held before its halo slices ran was taken for a handle, and no meeting
        completed there (a 10 x 10 stencil of 720 kB blocks: yes 122 times in 855
        questions, where the plugin's walk said yes 213 in 471). ``frees`` (admission's
        question): a completed meeting counts only where completing it frees a slot
        (policy.frees_slot), where policy.FREES_SLOT and policy.frees_slot_on say so, as
        the plugin's placement._decide asks after its walk."""
        complete: set = set()
        constant = self._constant.__getitem__
        plan = meeting_plan(i, self._dependents, self._dependencies, constant=constant)
        tops: dict | None = {} if frees and policy_module.FREES_SLOT & 1 and (
            policy_module.frees_slot_on(self.workers[w].threads)) else None  # fmt: skip
        meeting_partners(i, self._dependents, self._dependencies, self._where,
                         constant=constant, complete=complete,
                         nbytes=self._known_size.__getitem__, plan=plan, tops=tops)  # fmt: skip
        if w in complete and tops is not None and not frees_slot(
                tops.get(w, ()), self.books.carries, self._reduces):  # fmt: skip
            complete.discard(w)
        return w in complete or joins_started_fan_in(i, plan, self._dependencies, self._where)

    def _reduces(self, u: int, c: int) -> bool:
        """``policy.frees_slot``'s ``reduces``: has u's group so far kept less than
        ``chain_keep`` of c's bytes (``policy.reduces``, on the average its finished tasks
        returned, as the plugin reads dask's TaskGroup: tasks._returned; none finished:
        no)? Found when asked (rarely: a pass past the count on a worker where
        policy.frees_slot_on holds), not kept per task end."""
        g = self._group[u]
        tasks = self._group_tasks.get(g)
        if tasks is None:
            tasks = self._group_tasks[g] = np.flatnonzero(self.graph.group == g).tolist()
        state, nbytes = self.state, self.nbytes
        done = [nbytes[t] for t in tasks if state[t] in _FINISHED]
        if not done:
            return False
        s = state[c]
        size = nbytes[c] if s == MEMORY or s == SPILLED else self.books.estimate(
            self._known_size[c], self._group[c])
        return reduces(sum(done) / len(done), size, self.policy.chain_keep)

    def _dependents(self, t: int) -> list:
        a, b = self._dependent_ptr[t], self._dependent_ptr[t + 1]
        if b - a > WIDE:
            return self._wide_list(self._wide_dependents, self._dependent_idx, t, a, b)
        return self._dependent_idx[a:b]

    def _dependencies(self, t: int) -> list:
        a, b = self._dep_ptr[t], self._dep_ptr[t + 1]
        if b - a > WIDE:
            return self._wide_list(self._wide_dependencies, self._dep_idx, t, a, b)
        return self._dep_idx[a:b]

    @staticmethod
    def _wide_list(kept: dict, idx: list, t: int, a: int, b: int) -> list:
        """A wide task's inputs or readers, sliced once and kept (read only): the graph
        walks ask for them once per root (review21: a sum of 100k tasks, each root's
        question copied the 100k inputs: 74 s of CPU against threaded's 6.4)."""
        found = kept.get(t)
        if found is None:
            found = kept[t] = idx[a:b]
        return found

    def _where(self, t: int) -> tuple:
        s = self.state[t]
        return (self.where[t],) if s == PROCESSING or s == MEMORY or s == SPILLED else ()

    # -- spilling -----------------------------------------------------------------------
    def _load(self, i: int, sid: int, actions: list, arg=None) -> None:
        w = self.where[i]
        worker = self.workers[w]
        self.state[i] = MEMORY
        worker.spilled -= self.nbytes[i]
        worker.held += self.nbytes[i]
        self._in_memory[w].add(i)
        self.bytes_loaded += self.nbytes[i]
        actions.append(Load(i, w))

    def _spill_one(self, i: int, sid: int, actions: list, arg=None) -> None:
        w = self.where[i]
        worker = self.workers[w]
        self._leave_memory(i, w)
        # Unnamed until the body reads it back (rename): the same object if it never
        # reached the disk, a copy if it did (the old name may then belong to another).
        self.buffer[i] = 0
        self.state[i] = SPILLED
        worker.spilled += self.nbytes[i]
        self.bytes_spilled += self.nbytes[i]
        actions.append(Spill(i, w))

    def _spill_over_budget(self, sid: int, actions: list) -> None:
        """Measured results over budget: spill those whose next use lies furthest ahead.
        (Running tasks' estimates only gate admission: their outputs may be consumed at once.)"""
        drops = any(self.rerun)
        for w, worker in enumerate(self.workers):
            excess = worker.held - worker.budget
            if excess > 0:
                self._spill(w, excess, sid, actions)
            if drops and worker.held > self.keep[w]:
                self._drop_down_to(w, self.keep[w], sid, actions)

    def _drop_down_to(self, w: int, level: float, sid: int, actions: list) -> None:
        """Drop held roots cheap to run again, furthest next use first, while more than
        ``level`` is held; spill nothing."""
        worker = self.workers[w]
        for _, i in spill_candidates(
            self._in_memory[w], self.state, self.nbytes, self._priority,
            self._dependent_ptr, self._dependent_idx, PROCESSING, _PENDING,
        ):  # fmt: skip
            if worker.held <= level:
                return
            if self._may_drop(i) and not self._shares(i):
                self._transition(i, DROPPED, sid, actions)

    def _spill(self, w: int, amount: float, sid: int, actions: list, spare=(),
               waking: bool = False) -> None:
        """Spill at least ``amount`` bytes, furthest next use first, none of ``spare``;
        ``waking``: room for a task starting now (``_may_drop``)."""
        candidates = spill_candidates(
            self._in_memory[w], self.state, self.nbytes, self._priority,
            self._dependent_ptr, self._dependent_idx, PROCESSING, _PENDING,
        )  # fmt: skip
        freed = 0.0
        drops = any(self.rerun)
        movable = {i for _, i in candidates if i not in spare}
        # Last resort: results sharing a buffer with another held one (spilled alone, they
        # free nothing) and results too small to matter, a thousand of which would not free
        # the amount (a store's empty arrays: vorticity wrote 24 files for nothing).
        shared = []
        nbytes, tiny = self.nbytes, amount / 1000
        for next_use, i in candidates:
            if freed >= amount:
                break
            if i in spare:
                continue
            if nbytes[i] < tiny or self._shares(i):
                shared.append(i)
                continue
            freed += self._evict(i, drops, waking, sid, actions)
        if freed < amount and shared:
            self._evict_buffers(shared, amount - freed, movable, drops, waking, sid, actions)

    def _evict_buffers(self, shared: list, amount: float, movable: set, drops: bool,
                       waking: bool, sid: int, actions: list) -> None:
        """Evict results of ``shared`` (furthest next use first) until ``amount`` bytes
        are freed, a named buffer's holders all at once: its memory goes with the last of
        them only, so evicting piece by piece across buffers (a rechunk's piece 19 of every
        chunk, then piece 18, ...) wrote every piece before a buffer was freed. A buffer's
        next use is its holders' earliest; its freed bytes are theirs together."""
        holders, buffer = self._holders, self.buffer
        rank = {i: r for r, i in enumerate(shared)}
        soonest: dict[int, int] = {}  # buffer -> rank of its holder needed soonest
        for i in shared:
            if buffer[i]:
                soonest[buffer[i]] = rank[i]
        freed, done = 0.0, set()
        for i in sorted(shared, key=lambda i: soonest.get(buffer[i], rank[i])):
            if freed >= amount:
                return
            b = buffer[i]
            if not b:
                if self.state[i] == MEMORY:
                    freed += self._evict(i, drops, waking, sid, actions)
                continue
            if b in done:
                continue
            done.add(b)
            group = holders.get(b, set())
            # A buffer whose holders cannot all go (a running task's inputs, the task's
            # own) stays: spilling the others would write it out for nothing.
            if not group or not group <= movable:
                continue
            # Views first: once they are gone their input no longer shares its buffer.
            ordered = sorted(group, key=lambda j: (not self.views[j], rank.get(j, -1)))
            nbytes = sum(self.nbytes[j] for j in ordered)
            for j in ordered:
                self._evict(j, drops, waking, sid, actions)
            freed += nbytes

    def _evict(self, i: int, drops: bool, waking: bool, sid: int, actions: list) -> float:
        """Drop result i (a cheap root or a view, made again later) or spill it; the bytes
        freed."""
        # Sharing its buffer with another held result, it frees nothing (yet): spilling
        # goes on (at vorticity's smallest limit a chunk whose slice stayed held was spilled
        # as the room for a 64 MB difference, which then started 13 MB past the limit).
        nbytes = 0.0 if self._shares(i) else self.nbytes[i]
        drop = (drops or self.views[i]) and self._may_drop(i, waking)
        self._transition(i, DROPPED if drop else SPILLED, sid, actions)
        return nbytes

    def _leave_memory(self, i: int, w: int) -> None:
        """Held result i leaves worker w's memory (released, spilled or dropped)."""
        self._frees_nothing(i, w)
        self._unhold(i)
        self.workers[w].held -= self.nbytes[i]
        self._in_memory[w].discard(i)

    def _frees_nothing(self, i: int, w: int) -> None:
        """Held result i leaves memory's books: when it shares its buffer with another held
        result, no memory is freed, so what held results may reach drops by as much as the
        count does (the body's ceiling counted its bytes as held; until its next
        measurement the room a release made would be room on paper only: vorticity's
        slices released after a difference let the next start 13 MB past the limit)."""
        if self.ceiling[w] < math.inf and self._shares(i):
            self.ceiling[w] -= self.nbytes[i]
            b = self.buffer[i]
            if b:  # given back when the buffer's last holder goes (_unhold)
                self._taken[b] = self._taken.get(b, 0.0) + self.nbytes[i]

    def rename(self, i: int, b: int) -> None:
        """The body names result i's buffer anew (read back from disk: a copy of its own)."""
        if self.state[i] == MEMORY:
            self._unhold(i)
            self.buffer[i] = b
            if b:
                self._holders.setdefault(b, set()).add(i)
        else:
            self.buffer[i] = b

    def _unhold(self, i: int) -> None:
        b = self.buffer[i]
        if b:
            held = self._holders[b]
            held.discard(i)
            if not held:
                del self._holders[b]
                # Its memory is freed now: the ceiling gets back what its holders took
                # leaving before (else each buffer evicted whole lowered it by all but its
                # last piece, and the next task spilled another buffer for that room).
                taken = self._taken.pop(b, 0.0)
                if taken:
                    self.ceiling[self.where[i]] += taken

    def _shares(self, i: int) -> bool:
        """Does held result i share its buffer with another held result (so spilling i
        alone frees nothing)? Results flagged in ``views`` view their single input's; the
        body may name each result's buffer (``buffer``)."""
        b = self.buffer[i]
        if b and len(self._holders.get(b, ())) > 1:
            return True
        state, views = self.state, self.views
        if views[i]:
            j = self._dep_idx[self._dep_ptr[i]]
            if state[j] == MEMORY:
                return True
            i, skip = j, i  # a sibling view of the same input
        else:
            skip = -1
        for c in range(self._dependent_ptr[i], self._dependent_ptr[i + 1]):
            d = self._dependent_idx[c]
            if views[d] and d != skip and state[d] == MEMORY:
                return True
        return False

    # -- running a root again instead of spilling its output ----------------------------
    def _may_drop(self, i: int, waking: bool = False) -> bool:
        """May result i be dropped (``_drop_with``)? ``waking``: even when a task needing
        it would wait for nothing but dropped results, woken at once (it runs again just
        before that task, in its turn). Only to make room for a task starting now, and
        once per result: over budget, or run again already, it would be admitted again
        at once and dropped again, without end."""
        going = self._drop_with(i)
        if going is None:
            return False
        return not going[1] or (waking and not self.recomputed[i])

    def _drop_with(self, i: int) -> list | None:
        """May held result i be dropped and run again later, rather than spilled? One
        cheap to make again (``_cheap_again``), no view of whose output is held, while
        every task still needing it waits for something else too (none is ready: it would
        need the result at once), but for pieces of it still to cut (``_withdrawn``).
        None if not; else those pieces and the tasks withdrawn with them, and the tasks
        to wake once it is dropped (``_following``)."""
        if self._output[i] or not self._cheap_again(i):
            return None
        state, waiting_on, dropped_in = self.state, self.waiting_on, self._dropped_in
        pieces = []
        for c in range(self._dependent_ptr[i], self._dependent_ptr[i + 1]):
            d = self._dependent_idx[c]
            s = state[d]
            if s == WAITING:
                if waiting_on[d] <= dropped_in.get(d, 0):
                    return None  # waits only for dropped roots: they are running again
            elif s == READY:
                pieces.append(d)
            elif s == PROCESSING:
                return None
            elif self.views[d] and (s == MEMORY or s == SPILLED):
                return None  # a view of i's output is held: dropping i frees nothing
        if not pieces:
            return pieces, ()
        following = self._withdrawn(i, pieces)
        if following is None:
            return None
        return pieces + following[0], following[1]

    def _cheap_again(self, i: int) -> bool:
        """Is held result i cheaper to make again than to write to disk and read back? A
        root with no inputs of a group measured so (``rerun``); or a view of its single
        input while that input is held: made again, it reads and copies nothing (at
        vorticity's 140 MB a chunk and its pad's view of it were both written, twice a
        step, 64 MB to free 32)."""
        if not self._ndeps[i]:
            return self._root[i] and self.rerun[self._group[i]]
        return bool(self.views[i]) and self.state[self._dep_idx[self._dep_ptr[i]]] in (
            MEMORY, SPILLED)

    def _withdrawn(self, i: int, pieces: list) -> tuple | None:
        """May ready tasks ``pieces`` of dropped result i go back to waiting for it, to run
        after its next run? Each reads i alone, is no output and no limit's, and a sibling
        of its group cut from i ran already (a rechunk's other split: i is cut in pieces,
        and this one is wanted later). (An anomaly's partial sum, ready beside its chunk,
        has no such sibling: it is work to do now.) A view of i dropped a moment ago ran too:
        its sibling slice then goes with i (at vorticity's 140 MB a pad's slice of a chunk
        was dropped, its sibling slice ready, and the chunk written instead: 1.0x the input
        written). None if not; else ``_following``'s."""
        state, group, views = self.state, self._group, self.views
        ran = {group[d] for d in self._dependents(i) if state[d] in (MEMORY, SPILLED, RELEASED)
               or (state[d] == DROPPED and views[d])}
        for d in pieces:
            if self._ndeps[d] != 1 or self._output[d] or d in self._limited:
                return None
            if group[d] not in ran or self.needed_by[d] == 0:
                return None  # not cut in pieces; or none would wake it (consumers do)
        return self._following(pieces, FOLLOW_DEPTH)

    def _following(self, going: list, depth: int) -> tuple | None:
        """Tasks ``going`` are withdrawn: every task needing them must wait for more than
        them and dropped results (its other inputs' ends wake the dropped ones), or, reading
        one of them alone, be withdrawn with them, ``depth`` levels down at most (a chunk's
        pad view, ready, and its splits waiting for it alone), or be woken once they are
        dropped (reading several, it would wait for nothing else: vorticity's difference of
        a split of that view and a piece of the chunk). A task's inputs among those going
        are counted over every level (reading a piece and a task withdrawn with it, one
        level down, it waits for nothing else: counted per level, it was left waiting and
        nothing woke the root, review17). None if some cannot; else those withdrawn too
        and those to wake."""
        state, waiting_on, dropped_in = self.state, self.waiting_on, self._dropped_in
        count: dict[int, int] = {}  # waiting task -> its inputs among those going
        follow: list[int] = []
        while going:
            deeper = []
            for d in going:
                for m in self._dependents(d):
                    if state[m] != WAITING:
                        return None
                    count[m] = count.get(m, 0) + 1
                    if self._ndeps[m] > 1:
                        continue
                    if depth == 0 or self._output[m] or m in self._limited or (
                            not self.needed_by[m]):  # fmt: skip
                        return None  # (one needed by none: nothing would wake it)
                    deeper.append(m)
            follow += deeper
            going, depth = deeper, depth - 1
        # (Woken when its other inputs are in, if it waits for more.)
        wake = [m for m, k in count.items()
                if self._ndeps[m] > 1 and waiting_on[m] <= dropped_in.get(m, 0) + k]  # fmt: skip
        return follow, wake

    def _drop(self, i: int, sid: int, actions: list, arg=None) -> None:
        going, wake = self._drop_with(i)
        for d in going:
            self._transition(d, DROPPED, sid, actions)
        w = self.where[i]
        nbytes = self.nbytes[i]
        self._leave_memory(i, w)
        self.buffer[i] = 0  # run again, it is new memory (named anew when it returns)
        self.state[i] = DROPPED
        self.n_finished -= 1
        self.recomputed[i] = 1
        self._returning.add(i)
        if self._root[i]:
            self.roots_held -= 1
            self.books.on_released(i, sid)
        elif self.books.carrying:
            self.books.on_released(i, sid)
        if self._ndeps[i]:  # a view: made again from its input, which stays held till then
            self.needed_by[self._dep_idx[self._dep_ptr[i]]] += 1
        else:
            self.bytes_dropped += nbytes
        state, waiting_on, dropped_in = self.state, self.waiting_on, self._dropped_in
        for c in range(self._dependent_ptr[i], self._dependent_ptr[i + 1]):
            d = self._dependent_idx[c]
            if state[d] == WAITING:
                waiting_on[d] += 1
                dropped_in[d] = dropped_in.get(d, 0) + 1
        actions.append(Release(i, w))
        for t in wake:  # it waits for nothing but what was dropped: that runs again
            if state[t] == WAITING and waiting_on[t] == dropped_in.get(t, 0):
                self._wake_inputs(t, sid)

    def _withdraw(self, i: int, sid: int, actions, arg=None) -> None:
        """Task i, a piece of a result being dropped (ready) or a task reading such a piece
        alone (waiting), waits for that result's next run."""
        if self.state[i] == READY:
            heap = self._ready_roots if self._root[i] else self._ready
            # By task, not (own priority, task): a task run again, or offered back by its
            # limit, waits under another priority (review18 #1: a re-run view withdrawn
            # with its root broke the core).
            _heap_remove(heap, next(k for k, (_, t) in enumerate(heap) if t == i))
            self.n_ready -= 1
            self.ready_in[self._group[i]] -= 1
        else:
            self.n_waiting -= 1
            del self._dropped_in[i]  # counted anew when it waits again (_rewait)
        self.state[i] = DROPPED
        if i in self._returning:
            return  # dropped before and not back yet: the tasks waiting count it so
        self._returning.add(i)
        state, dropped_in = self.state, self._dropped_in
        for c in range(self._dependent_ptr[i], self._dependent_ptr[i + 1]):
            d = self._dependent_idx[c]
            if state[d] == WAITING:  # it counts i already: i never finished
                dropped_in[d] = dropped_in.get(d, 0) + 1

    def _rewait(self, i: int, sid: int, actions, arg=None) -> None:
        """Dropped task i (a withdrawn piece, a view) waits for its input, woken a moment
        ago; so do the dropped views and pieces of i (else none would wake them)."""
        self.state[i] = WAITING
        self.n_waiting += 1
        self.waiting_on[i] = 1
        self._dropped_in[i] = 1
        for d in self._dependents(i):
            if self.state[d] == DROPPED:
                self._transition(d, WAITING, sid)

    def _recompute(self, i: int, sid: int, actions, arg=None) -> None:
        priority = self._rerun_priority(i)
        self.state[i] = READY
        self.n_ready += 1
        self.n_recomputed += 1
        self.ready_in[self._group[i]] += 1
        heapq.heappush(self._ready_roots if self._root[i] else self._ready, (priority, i))
        for d in self._dependents(i):
            if self.state[d] == DROPPED:  # withdrawn with it: waits for it again
                self._transition(d, WAITING, sid)

    def _rerun_priority(self, i: int) -> int:
        """A dropped root runs again just before the earliest task waiting for it (or for a
        piece of it withdrawn with it): its own priority came before the tasks it fed the
        first time (a mean), so every root woken at once would run ahead of every consumer
        ready meanwhile, and the consumers' room was made by spilling the roots read ahead
        (the zarr anomaly: 192 MB written)."""
        p = self._priority[i]
        state, priority = self.state, self._priority
        waiting = []
        below = [i]
        while below:  # down through the pieces and tasks withdrawn with it
            d = below.pop()
            for m in self._dependents(d):
                if state[m] == WAITING:
                    waiting.append(priority[m])
                elif state[m] == DROPPED:
                    below.append(m)
        return max(p, min(waiting)) if waiting else p

    def _back(self, i: int) -> None:
        """Dropped root i (or a piece withdrawn with it) is in memory again: the tasks
        waiting for it no longer count it."""
        self._returning.discard(i)
        state, dropped_in = self.state, self._dropped_in
        for c in range(self._dependent_ptr[i], self._dependent_ptr[i + 1]):
            d = self._dependent_idx[c]
            if state[d] == WAITING:
                left = dropped_in[d] - 1
                if left:
                    dropped_in[d] = left
                else:
                    del dropped_in[d]

    def _wake_inputs(self, d: int, sid: int) -> None:
        """Task d waits only for dropped results (and pieces withdrawn with them) now:
        they run again, a piece or a view after its input when that is dropped too."""
        state = self.state
        for c in range(self._dep_ptr[d], self._dep_ptr[d + 1]):
            x = self._dep_idx[c]
            if state[x] == DROPPED:
                while self._ndeps[x] and state[self._dep_idx[self._dep_ptr[x]]] == DROPPED:
                    x = self._dep_idx[self._dep_ptr[x]]
                self._transition(x, READY, sid)

    # -- invariants ---------------------------------------------------------------------
    def _validate_touched(self) -> None:
        touched, self._touched = self._touched, []
        for i in set(touched):
            self.validate_task(i)
        for w, worker in enumerate(self.workers):
            assert 0 <= worker.processing <= worker.threads, (w, worker.processing)
            # The cap holds except for the one root an idle worker may always start.
            assert worker.roots_processing <= max(self.caps[w], 1), (w, worker.roots_processing)
            assert worker.held >= 0 and worker.spilled >= 0 and worker.roots_untouched >= 0
        self.books.validate()
        if self.limits:
            self.limits.validate()
        if self.done or (self.n_running == 0 and (self.failed is not None or self.stopped)):
            self.validate_state()  # the run is over: one full sweep
        elif self.failed is None and not self.stopped:
            assert self.n_running, self._deadlock()

    def _deadlock(self) -> str:
        ready = [self.graph.keys[i] for _, i in (self._ready + self._ready_roots)[:5]]
        ready += [self.graph.keys[i] for i in self.limits.held()[:5]]
        return f"work remains but nothing runs or can run; ready: {ready}"

    def validate_task(self, i: int) -> None:
        """Assert everything about task i that its state implies; O(its edges)."""
        g, state = self.graph, self.state
        s = state[i]
        key = g.keys[i]

        def fail(msg):
            return f"{key!r} ({STATE_NAMES[s]}): {msg}; story: {self.story(i)[-10:]}"

        deps = self._dependencies(i)
        if s in (READY, PROCESSING):
            for d in deps:
                assert state[d] in (MEMORY, SPILLED) or (s == PROCESSING and state[d] == MEMORY), (
                    fail(f"input {g.keys[d]!r} is {STATE_NAMES[state[d]]}")
                )
            if s == PROCESSING:
                assert all(state[d] == MEMORY for d in deps), fail("an input is not in memory")
                assert self.books.processing_on(i) == self.where[i], fail("books")
        if s == WAITING:
            assert self.waiting_on[i] == sum(state[d] not in (MEMORY, SPILLED) for d in deps), (
                fail("waiting count")
            )
            assert self._dropped_in.get(i, 0) == sum(d in self._returning for d in deps), (
                fail("dropped inputs")
            )
        if s == DROPPED:
            assert i in self._returning and i not in self._in_memory[self.where[i]], fail("drop")
            assert not self._ndeps[i] or state[deps[0]] == DROPPED or (
                self.views[i] and state[deps[0]] in (MEMORY, SPILLED)), fail("its root is back")
            assert not any(state[d] in (READY, PROCESSING) for d in self._dependents(i)), (
                fail("dropped while needed now")
            )
        if s == MEMORY:
            assert i in self._in_memory[self.where[i]], fail("not among in-memory results")
        if s == SPILLED:
            assert i not in self._in_memory[self.where[i]], fail("spilled but in memory")
            assert all(state[d] != PROCESSING for d in self._dependents(i)), fail("input spilled")
        if s in (MEMORY, SPILLED):
            # (A dropped dependent of a held result is a view of it, to be made again.)
            pending = sum(state[d] in (WAITING, READY, PROCESSING, DROPPED)
                          for d in self._dependents(i))
            assert pending == self.needed_by[i] or self.failed is not None, fail("needed_by")
            assert pending or self._output[i] or self.failed is not None, fail("held but unused")
        if s == RELEASED:
            assert not self._output[i], fail("an output was released")
            assert all(
                state[d] in (MEMORY, SPILLED, RELEASED, ERRED) for d in self._dependents(i)
            ), fail("released while needed")

    def validate_state(self) -> None:
        """Every invariant, sweeping all tasks: O(tasks + edges)."""
        n = len(self.graph)
        W = len(self.workers)
        held, spilled, running, roots = [0] * W, [0] * W, [0] * W, [0] * W
        in_memory = [0] * W
        counts = [0] * len(State)
        for i in range(n):
            s = self.state[i]
            counts[s] += 1
            self.validate_task(i)
            w = self.where[i]
            if s == MEMORY:
                held[w] += self.nbytes[i]
                in_memory[w] += 1
            elif s == SPILLED:
                spilled[w] += self.nbytes[i]
            elif s == PROCESSING:
                running[w] += 1
                roots[w] += bool(self._root[i])
        assert counts[READY] == self.n_ready == (
            len(self._ready) + len(self._ready_roots) + self.limits.n_held
        )
        assert counts[PROCESSING] == self.n_running
        ready_in = [0] * len(self.ready_in)
        for i in range(n):
            if self.state[i] == READY:
                ready_in[self._group[i]] += 1
        assert ready_in == self.ready_in, (ready_in, self.ready_in)
        assert counts[WAITING] == self.n_waiting
        assert counts[MEMORY] + counts[SPILLED] + counts[RELEASED] == self.n_finished
        holders: dict[int, set] = {}
        for i in range(n):
            if self.state[i] == MEMORY and self.buffer[i]:
                holders.setdefault(self.buffer[i], set()).add(i)
        assert holders == self._holders, (holders, self._holders)
        for w, worker in enumerate(self.workers):
            assert worker.held == held[w], (worker.held, held[w])
            assert worker.spilled == spilled[w], (worker.spilled, spilled[w])
            assert len(self._in_memory[w]) == in_memory[w]
            assert worker.processing == running[w] <= worker.threads
            assert worker.roots_processing == roots[w]
            assert roots[w] <= max(self.caps[w], 1)
        self.books.validate()
        limit_counts = dict.fromkeys(self.limits.caps, 0)
        for i, names in self._limited.items():
            if self.state[i] == PROCESSING:
                for name in names:
                    limit_counts[name] += 1
        for name, cap in self.limits.caps.items():
            assert limit_counts[name] == self.limits.count[name] <= cap, (
                f"concurrency limit {name!r} exceeded: {limit_counts[name]} > {cap}"
            )
        for i in self.limits.held():
            assert self.state[i] == READY, f"{self.graph.keys[i]!r} withheld by a limit, not ready"
        self.limits.validate()
        if self.failed is None and not self.stopped and not self.done:
            assert self.n_running, self._deadlock()
