"""Sans-I/O scheduler state machine: events in, actions out. No threads, no clock, no I/O.

Rules of this file: task state changes only through ``_transition`` (the table below is
every legal move); the per-worker books and the decisions read from them live in books.py
and the policy package, shared with the dask plugin; this file translates events and executes.

``Scheduler`` is one class written in five files, as mixins holding methods only (its state
is set in ``__init__``, here): this file holds the events, every move (the methods the
table names) and the graph as the policy reads it; core_admission.py which ready task
starts where, and the room it starts in; core_eviction.py what leaves memory when it is
short (spilled or dropped) and how a dropped result comes back; core_pulls.py the
consumers of a held result brought forward; core_validation.py the invariants. The task
states are core_states.py's.

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

import numpy as np

from .books import LOG_SIZE, Books, InvalidTransition, Limits, WorkerBook
from .core_admission import Admission, _heap_remove
from .core_eviction import Eviction
from .core_pulls import Pulls, _layers
from .core_states import (
    _FINISHED, DROPPED, ERRED, MEMORY, PROCESSING, READY, RELEASED, SPILLED,
    STATE_NAMES, WAITING, State,
)  # fmt: skip
from .core_validation import Validation
from .graph import TaskGraph
from .policy import Policy, footprint_refused, largest_footprint, read_on, second_input

__all__ = [
    "State", "WAITING", "READY", "PROCESSING", "MEMORY", "RELEASED", "ERRED", "SPILLED", "DROPPED",
    "STATE_NAMES", "Finished", "Failed", "Run", "Release", "Spill", "Load", "Worker",
    "Scheduler", "InvalidTransition",
]  # fmt: skip


# Tasks with more inputs (or readers) than this keep their list once sliced (_wide_list).
WIDE = 64

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


class Scheduler(Admission, Pulls, Eviction, Validation):
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
        # needs, yet two of the neediest (local_steering._below_working_set, at each ask):
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

    # -- one stimulus -------------------------------------------------------------------
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

    # -- the graph as the policy reads it -----------------------------------------------
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

