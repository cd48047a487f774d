"""One simulated worker: distributed's own ``WorkerState``, its instructions played on the
virtual clock. The shape of ``distributed.worker_state_machine.BaseWorker``: stimuli in,
instructions out, each instruction becomes a future event.

- ``Execute``: a free thread runs the task for its duration, then ``ExecuteSuccessEvent``
  with a :class:`Blob` of the task's size as the value.
- ``GatherDep``: one incoming queue per worker: transfers run one after another, each
  taking latency + bytes / bandwidth; then ``GatherDepSuccessEvent`` with the keys the
  sender still holds (dask's own handling asks again for the others). A sender's outgoing
  link is shared the same way (one NIC): with ``outgoing_bandwidth`` finite, a transfer
  also waits until the sender's link is free, and runs at the slower of the two rates.
- ``SendMessageToScheduler``: goes on the worker's batched stream to the scheduler
  (:mod:`tidegate.sim.streams`).
"""

from __future__ import annotations

import math
from collections import Counter
from functools import partial
from heapq import heappop, heappush

from dask.sizeof import sizeof
from dask.utils import key_split, typename
from distributed.protocol import pickle
from distributed.worker_state_machine import (
    AcquireReplicasEvent,
    CancelComputeEvent,
    ComputeTaskEvent,
    Execute,
    ExecuteSuccessEvent,
    GatherDep,
    FreeKeysEvent,
    GatherDepSuccessEvent,
    RefreshWhoHasEvent,
    RemoveReplicasEvent,
    RetryBusyWorkerEvent,
    RetryBusyWorkerLater,
    SendMessageToScheduler,
    StealRequestEvent,
    TaskFinishedMsg,
    TaskState,
    UpdateDataEvent,
    WorkerState,
)

from ..trace import Memory, TaskEnd, Transfer
from . import heartbeats
from .hashing import stable_hash
from .quiet import quiet_methods
from .heartbeats import configured_bandwidth
from .streams import WORKER_TO_SCHEDULER, BatchedStream


# What dask's Worker.stream_handlers turn into stimuli; other ops are not simulated.
TO_WORKER = {
    "compute-task": ComputeTaskEvent,
    "free-keys": FreeKeysEvent,
    "acquire-replicas": AcquireReplicasEvent,
    "remove-replicas": RemoveReplicasEvent,
    "steal-request": StealRequestEvent,
    "refresh-who-has": RefreshWhoHasEvent,
    "cancel-compute": CancelComputeEvent,
}

# No task takes no time; dask's work stealing asserts a positive compute time.
MIN_DURATION = 1e-6


class Blob:
    """A task's result in the twin: no data, only its size."""

    __slots__ = ("nbytes",)

    def __init__(self, nbytes: int) -> None:
        self.nbytes = nbytes


@sizeof.register(Blob)
def _sizeof_blob(b: Blob) -> int:
    return b.nbytes


# What dask sends as a result's type in every task-finished message (the same bytes for
# every Blob; dask pickles the type anew each time, with a module lookup).
_BLOB_TYPE = pickle.dumps(Blob)
_BLOB_TYPENAME = typename(Blob)


class _NoTaskCounter:
    """dask's per-worker ``TaskCounter`` feeds metrics in wall-clock seconds, meaningless
    on a virtual clock; it cost 5% of the twin's time."""

    __slots__ = ()

    # Called on every new task and every batch of transitions, their results unused: C
    # functions doing nothing of note, so no Python frame per call (4 per task).
    new_task = staticmethod(id)
    transitions = staticmethod(len)

    def current_count(self, by_prefix: bool = True) -> Counter:
        return Counter()

    def cumulative_elapsed(self, by_prefix: bool = True) -> dict:
        return {}


_HANDLERS = WorkerState.__dict__["_handle_event"].dispatcher.dispatch


class _StableTaskState(TaskState):
    """A worker's TaskState hashing by its key's text (see .hashing). dask's hashes by id(),
    so a worker's sets of tasks (dependencies, dependents, what to fetch) followed memory
    addresses: which of two equal-priority inputs a fetch carried changed with
    PYTHONHASHSEED and with validation (distributed 2025.1). Equality stays identity."""

    __slots__ = ("_hash",)

    def __init__(self, key, hash_: int, prefix: str) -> None:
        self._hash = hash_
        super().__init__(key)
        self.prefix = prefix  # key_split(key), from the cluster's cache

    def __post_init__(self) -> None:
        """dask's sets the prefix and adds every TaskState to a WeakSet of them all, which
        only dask's own tests read (a weakref with a callback per task)."""

    def __hash__(self) -> int:
        return self._hash


class _FastWorkerState(WorkerState):
    """dask's ``WorkerState``, its stimuli dispatched more cheaply. ``_handle_event`` is a
    ``singledispatchmethod``, which Python < 3.12 wraps anew (``update_wrapper``) on every
    call; here the same registered handler is looked up by the event's type and called.
    Without validation, the stimulus log (kept to print after a failed check, 1/10 of a
    worker's time in copies of each event) is skipped. Otherwise dask's own
    ``handle_stimulus``.

    Its TaskStates are :class:`_StableTaskState`: dask creates them in three places
    (``_ensure_task_exists`` and the compute-task and update-data handlers), each only if
    the key is not in ``tasks``; the twin puts one there just before."""

    _salt = 0  # the worker's (SimWorker sets it): see _new_task
    _hashes: dict = {}  # the model's stable hashes by key (SimWorker sets them)
    _group = staticmethod(key_split)  # a key's prefix (SimWorker: its cluster's cache)

    def _new_task(self, key) -> None:
        # Salted by the worker: a key's copies on 100 workers once all collided in dask's
        # WeakSet of every TaskState (no longer filled, see _StableTaskState); the salt
        # stays, as it decides the order of each worker's sets, hence the traces.
        h = self._hashes.get(key)
        if h is None:
            h = stable_hash(key)
        self.tasks[key] = ts = _StableTaskState(key, h ^ self._salt, self._group(key))
        self.task_counter.new_task(ts)

    _dask_ensure_task_exists = WorkerState._ensure_task_exists
    _handlers: dict = {}  # dask's handler -> the one to run instead (_QuietWorkerState)
    # event type -> the handler to run, filled on first use (each class its own): dask's
    # dispatch looks the type up in a WeakKeyDictionary, a weakref and two calls per event
    _dispatch: dict = {}

    def _ensure_task_exists(self, key, *, priority, stimulus_id):
        if key not in self.tasks:
            self._new_task(key)
        return self._dask_ensure_task_exists(key, priority=priority, stimulus_id=stimulus_id)

    def _handle_event(self, ev):
        """dask's ``handle_stimulus`` calls this (with validation)."""
        kind = type(ev)
        if kind is ComputeTaskEvent:
            if ev.key not in self.tasks:
                self._new_task(ev.key)
        elif kind is UpdateDataEvent:
            for key in ev.data:
                if key not in self.tasks:
                    self._new_task(key)
        handler = self._dispatch.get(kind)
        if handler is None:
            handler = _HANDLERS(kind)
            handler = self._dispatch[kind] = self._handlers.get(handler, handler)
        return handler(self, ev)

    def _get_task_finished_msg(self, ts, run_id, stimulus_id):
        """dask's message, with a Blob's pickled type made once, not once per task."""
        if self.validate or ts.type is not Blob:
            return super()._get_task_finished_msg(ts, run_id, stimulus_id)
        return TaskFinishedMsg(
            key=ts.key, run_id=run_id, nbytes=ts.nbytes, type=_BLOB_TYPE,
            typename=_BLOB_TYPENAME, metadata=ts.metadata, thread=self.threads.get(ts.key),
            startstops=ts.startstops, stimulus_id=stimulus_id,
        )

    def handle_stimulus(self, *stims):
        if self.validate:
            return super().handle_stimulus(*stims)
        instructions = []
        for stim in stims:
            recs, instr = self._handle_event(stim)
            instructions += instr
            instructions += self._transitions(recs, stimulus_id=stim.stimulus_id)
        return instructions


class _QuietWorkerState(_FastWorkerState):
    """Without validation: dask's methods that append to the worker's log (transitions,
    most stimuli) run as copies without those appends (see .quiet), nor their calls
    telling worker plugins of each transition: the twin's workers have none."""


def _quiet_worker_state() -> None:
    quiet = quiet_methods(WorkerState, "log", calls=("_notify_plugins",))
    ensure = quiet.pop("_ensure_task_exists", None)
    if ensure is not None:
        _QuietWorkerState._dask_ensure_task_exists = ensure
    for name, fn in quiet.items():
        if name not in _FastWorkerState.__dict__:  # the twin's own overrides stay
            setattr(_QuietWorkerState, name, fn)
    registered = WorkerState.__dict__["_handle_event"].dispatcher.registry.values()
    _QuietWorkerState._handlers = {
        fn: quiet[fn.__name__] for fn in registered
        if fn.__name__ in quiet and quiet[fn.__name__].__wrapped__ is fn}
    _QuietWorkerState._dispatch = {}  # not _FastWorkerState's: the handlers differ


_quiet_worker_state()


_KINDS: dict = {}  # instruction class -> the class the twin handles it as


def _kind(cls: type) -> type | None:
    for kind in (SendMessageToScheduler, Execute, GatherDep, RetryBusyWorkerLater):
        if issubclass(cls, kind):
            _KINDS[cls] = kind
            return kind
    return None


class SimWorker:
    def __init__(self, cluster, address: str, nthreads: int, validate: bool, **limits) -> None:
        self.cluster = cluster
        self.clock = cluster.clock
        self.address = address
        state_class = _FastWorkerState if validate else _QuietWorkerState
        self.state = state_class(nthreads=nthreads, address=address, validate=validate, **limits)
        self.state._salt = stable_hash(address)
        self.state._hashes = cluster.model.hashes
        self.state._group = cluster.group
        if not validate:  # validation compares the counts with the tasks
            self.state.task_counter = _NoTaskCounter()
            assert not self.state.plugins  # _QuietWorkerState tells plugins nothing
        self.free_threads = list(range(nthreads))  # a heap: the lowest free thread first
        self.incoming_free_at = 0.0  # when this worker's network link is free again
        self.outgoing_free_at = 0.0  # when it may start sending again
        self.peak = 0
        self.bandwidth = configured_bandwidth()  # dask's measured average (.heartbeats)
        self.roots_in_flight = 0  # as the scheduler sees it (.roots_in_flight), when recorded
        self.record_memory = cluster.record_memory
        self._sampled = (0, 0)
        self.stream = BatchedStream(cluster.clock, WORKER_TO_SCHEDULER,
                                    cluster.latency + cluster.loop_lag,
                                    partial(cluster.from_worker, address),
                                    lag=cluster.drawn_lag)

    def receive(self, msgs: list) -> None:
        """A batch from the scheduler: dask's worker turns each message into a stimulus."""
        events = []
        for msg in msgs:
            msg = dict(msg)
            cls = TO_WORKER.get(msg.pop("op"))
            if cls is None:
                continue
            if cls is ComputeTaskEvent:
                spec = msg["run_spec"]
                msg["run_spec"] = getattr(spec, "data", spec)
            events.append(cls(**msg))
        if events:
            self.handle_stimulus(*events)

    def handle_stimulus(self, *events) -> None:
        instructions = self.state.handle_stimulus(*events)
        if self.record_memory:
            self.sample()
        else:  # only the peak
            held = self.state.nbytes
            if held > self.peak:
                self.peak = held
        if len(instructions) > 1:
            instructions = self._deterministic(instructions)
        outgoing = []
        for inst in instructions:
            kind = _KINDS.get(type(inst)) or _kind(type(inst))
            if kind is SendMessageToScheduler:
                outgoing.append(inst.to_dict())
            elif kind is Execute:
                self._execute(inst)
            elif kind is GatherDep:
                self._gather(inst)
            elif kind is RetryBusyWorkerLater:
                self.clock.call_later(
                    0.15, self.handle_stimulus,
                    RetryBusyWorkerEvent(worker=inst.worker, stimulus_id=f"retry-{self.clock.now}"),
                )
            else:
                raise TypeError(inst)
        if outgoing:
            self.stream.send(outgoing)

    def _deterministic(self, instructions: list) -> list:
        """Executes and gathers in priority order. dask emits several of them in the order
        of a set of TaskStates (in a real worker, of memory addresses); threads and the
        incoming queue are handed out by priority rather than by hash."""
        tasks = self.state.tasks

        def rank(i):
            if isinstance(i, Execute):
                return (tasks[i.key].priority, "")
            return (min((tasks[k].priority, str(k)) for k in i.to_gather), i.worker)

        for kind in (Execute, GatherDep):
            picked = [i for i in instructions if isinstance(i, kind)]
            if len(picked) > 1:
                it = iter(sorted(picked, key=rank))
                instructions = [next(it) if isinstance(i, kind) else i for i in instructions]
        return instructions

    def sample(self) -> None:
        held = self.state.nbytes
        if held > self.peak:
            self.peak = held
        cl = self.cluster
        if cl.record_memory and self._sampled != (held, self.roots_in_flight):
            self._sampled = (held, self.roots_in_flight)
            cl.trace.memory.append(
                Memory(self.clock.now, self.address, held, roots_in_flight=self.roots_in_flight))

    def _execute(self, inst: Execute) -> None:
        key = inst.key
        thread = heappop(self.free_threads)
        start = self.clock.now
        cl = self.cluster
        extra = cl.task_lag  # None: drawn per task
        if extra is None:
            extra = 2 * cl.drawn_lag.draw() if cl.thread_lag is None else cl.thread_lag.draw()
        stop = start + max(MIN_DURATION, cl.model.durations.get(key, 0.0)) + extra
        self.clock.call_at(stop, self._finished, key, thread, start, stop)

    def _finished(self, key, thread, start, stop) -> None:
        heappush(self.free_threads, thread)
        ts = self.state.tasks.get(key)
        cl = self.cluster
        nbytes = cl.model.sizes.get(key, 0)
        cl.trace.tasks.append(
            TaskEnd(str(key), cl.group(key), self.address, thread, start, stop, nbytes,
                    cl.is_root(key))
        )
        if ts is None:
            return
        self.handle_stimulus(
            ExecuteSuccessEvent(
                key=key, run_id=ts.run_id, value=Blob(nbytes), start=start, stop=stop,
                nbytes=nbytes, type=Blob, stimulus_id=f"task-finished-{stop}",
            )
        )

    def _gather(self, inst: GatherDep) -> None:
        cl = self.cluster
        flying = self.state.in_flight_workers
        if flying.get(inst.worker) is inst.to_gather:
            # dask walks this set of keys when the data arrives, in the keys' hash order
            # (PYTHONHASHSEED: keys are dask's strings); a stand-in walks them by priority.
            tasks = self.state.tasks
            flying[inst.worker] = dict.fromkeys(
                sorted(inst.to_gather, key=lambda k: (tasks[k].priority, str(k))))
        sender = cl.workers[inst.worker]
        nbytes = sum(cl.model.sizes.get(k, 0) for k in inst.to_gather)
        start = max(self.clock.now, self.incoming_free_at)
        out = cl.outgoing_bandwidth
        if out < math.inf:  # the sender's link: 100 fetchers of one array queue there
            start = max(start, sender.outgoing_free_at)
        stop = start + cl.latency + nbytes / min(cl.bandwidth, out)
        self.incoming_free_at = stop
        if out < math.inf:
            sender.outgoing_free_at = stop
        # the link is free at ``stop``; the worker's loop notices the data loop_lag later
        lag = cl.loop_lag if cl.drawn_lag is None else cl.drawn_lag.draw()
        self.clock.call_at(stop + lag, self._gathered, sender, inst, start, stop,
                           self.clock.now)

    def _gathered(self, sender, inst: GatherDep, start, stop, asked) -> None:
        have = sender.state.data
        tasks = self.state.tasks
        order = sorted(inst.to_gather, key=lambda k: (tasks[k].priority, str(k)))
        data = {k: have[k] for k in order if k in have}
        cl = self.cluster
        for k, v in data.items():
            cl.trace.transfers.append(
                Transfer(str(k), sender.address, self.address, start, stop, v.nbytes))
            cl.bytes_transferred += v.nbytes
        heartbeats.measured(self, sum(v.nbytes for v in data.values()), stop - asked)
        if data:
            # dask's Worker.gather_dep reports each fetch as a "transfer" startstop of one
            # task it fetched for (_get_cause: a dependent here, else the key itself), from
            # asking to having (its loop's clock), named by its source; the scheduler gets
            # it with that task's task-finished. The twin gives the same (a real cluster's
            # signal; anom39 timed broadcast copies by it and dropped that: a copy that
            # lands before its readers is attached to the key itself, never reported).
            cause = None
            for k in data:
                ts = tasks[k]
                if ts.dependents:
                    cause = next(iter(ts.dependents))
                    break
                cause = ts
            cause.startstops.append({"action": "transfer", "start": asked,
                                     "stop": self.clock.now, "source": sender.address})
        self.handle_stimulus(
            GatherDepSuccessEvent(
                worker=inst.worker, total_nbytes=inst.total_nbytes, data=data,
                stimulus_id=f"gather-dep-success-{stop}",
            )
        )
