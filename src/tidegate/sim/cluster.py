"""dask.distributed's own scheduler and workers on a virtual clock.

:class:`SimScheduler` is distributed's ``SchedulerState`` plus the synchronous methods of
the server class ``Scheduler`` that only touch state; only ``add_worker`` (async, talks to
a comm) is rewritten, in :meth:`SimScheduler.add_sim_worker`. Messages travel through
:class:`SimCluster` on dask's batched streams (:mod:`.streams`): worker -> scheduler
after the latency, then through a single scheduler "CPU" that spends ``scheduler_time``
per message; scheduler -> worker after the latency. Work stealing is dask's own extension, balancing
on a virtual tick.

``loop_lag``: a real server notices a message, a finished task or a transfer only when its
event loop next runs; on a loaded machine (or with the scheduler and workers sharing one
loop, as an in-process LocalCluster does) that is milliseconds. Each batch and transfer
arrives ``loop_lag`` later; a task holds its thread ``2 x loop_lag`` longer (the loop hands
it to the thread pool, then takes its result back). Zero by default: a quiet cluster. Given
a list of observed lags, each batch, transfer and task draws its own (:mod:`.lag`; a task
draws one and doubles it); a stream still delivers its batches in order.

``thread_lag``, if given, replaces the ``2 x loop_lag`` of a task: how much longer than its
duration a task holds its thread, a constant or a list each task draws from. What a real
in-process LocalCluster shows under load: a task overruns its sleep by 1-60 ms (median
4-17 ms), while a message from scheduler to worker or back takes a median 1-4 ms at load
3-8, batching included (the fidelity bench measures both); one lag for both made every
message several ms too slow.
"""

from __future__ import annotations

import contextlib
import gc
import inspect
import logging
import operator

import dask
import dask.config
from dask._task_spec import DataNode
from dask.utils import key_split, parse_bytes
from distributed.collections import HeapSet
from distributed.core import Status
from distributed.scheduler import ClientState, Scheduler, SchedulerState, WorkerState
from distributed.stealing import WorkStealing
import distributed.worker_state_machine as wsm
from sortedcontainers import SortedDict

from . import collector, heartbeats
from .clock import Clock, VirtualLoop, VirtualTimers
from .heartbeats import configured_bandwidth
from .lag import Lag
from .quiet import quiet_methods
from .hashing import StableStr, stable_hash
from .roots_in_flight import RootsInFlightPlugin
from .streams import SCHEDULER_TO_WORKER, BatchedStream
from .worker import SimWorker

CLIENT = "twin-client"

# Scheduler methods that are synchronous and touch only scheduler state (or the comms the
# twin provides): used as they are.
_BORROWED = (
    "handle_task_finished", "handle_task_erred", "release_worker_data", "add_keys",
    "handle_long_running", "_reschedule", "handle_request_refresh_who_has",
    "handle_worker_status_change", "stimulus_task_finished", "stimulus_task_erred",
    "stimulus_retry", "stimulus_queue_slots_maybe_opened", "transition", "transitions",
    "_create_taskstate_from_graph", "_generate_taskstates", "_apply_annotations",
    "_set_priorities", "client_desires_keys", "client_releases_keys", "send_all",
    "worker_send", "client_send", "report", "report_on_key", "send_task_to_worker",
    "_refresh_no_workers_since", "add_plugin", "remove_plugin",
)

class SimScheduler(SchedulerState):
    """No ``__slots__``: plugins may replace methods on the instance, as on a real one."""

    def __init__(self, cluster, validate: bool) -> None:
        super().__init__(
            aliases={}, clients={}, workers=SortedDict(), host_info={}, resources={},
            tasks={}, unrunnable={}, queued=HeapSet(key=operator.attrgetter("priority")),
            validate=validate,
        )
        self.cluster = cluster
        self._hashes = cluster.model.hashes
        self.loop = VirtualLoop(cluster.clock, cluster.scheduler_work)
        self.periodic_callbacks = VirtualTimers(cluster.clock, cluster.scheduler_work)
        self.stream_comms: dict = {}
        self.client_comms: dict = {}
        self.stream_handlers: dict = {}
        self.status = Status.running
        self.generation = 0
        self._last_time = 0
        self._workers_added_total = 0
        self._active_graph_updates = 0
        self._no_workers_since = None
        self.worker_plugins: dict = {}
        self.digests = None  # stealing reports its timing here when set
        self.bandwidth = configured_bandwidth()  # then learnt from heartbeats (.heartbeats)
        self.stream_handlers.update({
            "task-finished": self.handle_task_finished,
            "task-erred": self.handle_task_erred,
            "release-worker-data": self.release_worker_data,
            "add-keys": self.add_keys,
            "long-running": self.handle_long_running,
            "reschedule": self._reschedule,
            "keep-alive": lambda **kw: None,
            "log-event": lambda **kw: None,
            "worker-status-change": self.handle_worker_status_change,
            "request-refresh-who-has": self.handle_request_refresh_who_has,
        })

    def log_event(self, topic, msg) -> None:
        pass

    def new_task(self, key, *args, **kwargs):
        ts = super().new_task(key, *args, **kwargs)
        # Before the task enters any set: sets of tasks then iterate alike for every
        # PYTHONHASHSEED (dask hashes a TaskState by its key; see .hashing).
        salt = self.cluster.seed
        h = None if salt else self._hashes.get(key)  # model.hashes: unsalted
        ts._hash = stable_hash(key, salt) if h is None else h
        return ts

    def _generate_taskstates(self, *args, **kwargs):
        """Scheduler._generate_taskstates, then its TaskStates' sets of dependencies and
        dependents rebuilt in dask.order's order. dask fills them from frozensets of keys,
        whose order follows PYTHONHASHSEED; a set's order follows its members' insertion
        where their hashes collide. That order reaches the workers (the ``who_has`` of a
        compute-task, hence where they fetch from), so it must not vary between processes."""
        out = Scheduler._generate_taskstates(self, *args, **kwargs)
        rank = self.cluster.model.priorities.__getitem__

        def by(ts):
            return rank(ts.key)

        for part in out:
            if type(part) is list:  # touched and new tasks (and, up to 2025.x, runnable)
                part.sort(key=by)
        for ts in out[-2]:  # new tasks
            if len(ts.dependencies) > 1:
                ts.dependencies = set(sorted(ts.dependencies, key=by))
            if len(ts.dependents) > 1:
                ts.dependents = set(sorted(ts.dependents, key=by))
        return out

    def validate_state(self, allow_overlap: bool = False) -> None:
        # Scheduler.validate_state calls super() bound to Scheduler: restated here.
        # In 2025.4 the whole check still lived on Scheduler, without super().
        if "validate_state" not in SchedulerState.__dict__:
            return Scheduler.validate_state(self, allow_overlap)
        SchedulerState.validate_state(self, allow_overlap=allow_overlap)
        assert set(self.workers) == set(self.stream_comms), "workers and comms differ"

    def add_sim_worker(self, address: str, nthreads: int, memory_limit: int) -> None:
        """The state part of ``Scheduler.add_worker``."""
        kwargs = dict(
            address=address, status=Status.running, pid=0, name=address, nthreads=nthreads,
            memory_limit=memory_limit, local_directory="", nanny=None, server_id=address,
            services={}, versions={}, extra={}, scheduler=self,
        )
        accepted = inspect.signature(WorkerState).parameters
        ws = WorkerState(**{k: v for k, v in kwargs.items() if k in accepted})
        ws._hash = hash(address)  # a StableStr (see .hashing); dask hashes the address
        self.workers[address] = ws
        self._workers_added_total += 1
        self.running.add(ws)
        self.host_info.setdefault(ws.host, {"addresses": {address}, "nthreads": nthreads})
        self.total_memory += ws.memory_limit
        self.total_nthreads += nthreads
        self.aliases[address] = address
        self.check_idle_saturated(ws)
        self.stream_comms[address] = _Comm(self.cluster, address)
        for plugin in list(self.plugins.values()):
            plugin.add_worker(scheduler=self, worker=address)
        sid = f"add-worker-{address}"
        self.transitions(self.bulk_schedule_unrunnable_after_adding_worker(ws), sid)
        self.stimulus_queue_slots_maybe_opened(stimulus_id=sid)


class QuietSimScheduler(SimScheduler):
    """Without validation: dask's ``_transition`` without its transition log (see .quiet)."""


for _name, _fn in quiet_methods(SchedulerState, "transition_log").items():
    if _name not in SimScheduler.__dict__:  # the twin's own (and borrowed) methods stay
        setattr(QuietSimScheduler, _name, _fn)


# Older releases keep the per-key validators on Scheduler.
_VALIDATORS = tuple(
    n for n in Scheduler.__dict__ if n.startswith("validate_") and n != "validate_state"
)
for _name in _BORROWED + _VALIDATORS:
    _fn = Scheduler.__dict__.get(_name)
    if _fn is not None and _name not in SimScheduler.__dict__:
        setattr(SimScheduler, _name, _fn)


@contextlib.contextmanager
def _hosts_remembered():
    """While the twin runs, distributed's workers look up each address's host from a dict.
    A worker choosing whom to fetch from parses the host of every peer it could fetch from
    (``WorkerState._select_workers_for_gather``), each time: 1% of a run. The same answers;
    restored after."""
    parse = getattr(wsm, "get_address_host", None)
    if parse is None:  # another release: nothing to remember
        yield
        return
    hosts: dict = {}

    def get_address_host(address: str) -> str:
        host = hosts.get(address)
        if host is None:
            host = hosts[address] = parse(address)
        return host

    wsm.get_address_host = get_address_host
    try:
        yield
    finally:
        wsm.get_address_host = parse


class PluginFailed(RuntimeError):
    """A scheduler plugin raised inside the twin (dask itself only logs it)."""


class _PluginErrors(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list = []

    def emit(self, record) -> None:
        if record.exc_info and record.getMessage().startswith("Plugin failed"):
            self.records.append(record)


class _Comm:
    """A scheduler -> worker stream, batched as dask's ``BatchedSend`` is."""

    def __init__(self, cluster, address: str) -> None:
        self.stream = BatchedStream(cluster.clock, SCHEDULER_TO_WORKER,
                                    cluster.latency + cluster.loop_lag,
                                    cluster.workers[address].receive, lag=cluster.drawn_lag)

    def send(self, *msgs) -> None:
        self.stream.send(list(msgs))


class SimCluster:
    def __init__(self, model, *, workers: int, threads_per_worker: int, bandwidth: float,
                 latency: float, scheduler_time: float, memory_limit: int, validate: bool,
                 stealing: bool, record_memory: bool, trace,
                 outgoing_bandwidth: float | None = None, loop_lag=0.0, thread_lag=None,
                 seed: int = 0) -> None:
        # Only scheduler work (scheduler_work) changes the scheduler's tasks, so only after
        # it can every output be in memory: ``done`` is asked after those events alone.
        self.clock = Clock(marked_only=True)
        self.model = model
        self.seed = seed  # salts the hashes dask orders its sets by (see .hashing)
        self.bandwidth = bandwidth
        # A sender's link, shared by its transfers; inf: not modelled (only receivers queue).
        self.outgoing_bandwidth = bandwidth if outgoing_bandwidth is None else outgoing_bandwidth
        self.latency = latency
        lag = Lag(loop_lag, seed)  # built per run: a drawn lag's generator starts from seed
        self.lag = lag
        # A constant lag is folded into the streams' latency; a drawn one is drawn per event.
        self.drawn_lag = lag if lag.drawn else None
        self.loop_lag = 0.0 if lag.drawn else lag.value
        # None: a task holds its thread 2 x loop_lag longer (one hand-off each way)
        self.thread_lag = None if thread_lag is None else Lag(thread_lag, seed, "thread")
        # How much longer than its duration a task holds its thread, when it is the same
        # for every task; None: drawn per task.
        if self.thread_lag is None:
            self.task_lag = None if lag.drawn else 2 * lag.value
        else:
            self.task_lag = None if self.thread_lag.drawn else self.thread_lag.value
        self.scheduler_time = scheduler_time
        self.record_memory = record_memory
        self.trace = trace
        self.bytes_transferred = 0
        self.messages = 0
        self._busy_until = 0.0
        self._groups: dict = {}
        self.scheduler = s = (SimScheduler if validate else QuietSimScheduler)(self, validate)
        self.steal = None
        if stealing:
            self.steal = WorkStealing(s)
            s.extensions["stealing"] = self.steal
            s.periodic_callbacks.add("stealing", self.steal.balance, self.steal._callback_time)
        limits = {}
        if memory_limit:
            frac = dask.config.get("distributed.worker.memory.transfer")
            if frac is not False:
                limits["transfer_incoming_bytes_limit"] = int(memory_limit * frac)
        limits["transfer_incoming_count_limit"] = dask.config.get(
            "distributed.worker.connections.outgoing")
        limits["transfer_message_bytes_limit"] = parse_bytes(
            dask.config.get("distributed.worker.transfer.message-bytes-limit"))
        self.workers: dict[str, SimWorker] = {}
        width = len(str(workers - 1))
        for i in range(workers):
            addr = StableStr(f"tcp://twin-w{i:0{width}d}:1", salt=seed)
            self.workers[addr] = SimWorker(self, addr, threads_per_worker, validate, **limits)
            s.add_sim_worker(addr, threads_per_worker, memory_limit or 0)
        heartbeats.start(self)
        if record_memory:
            s.add_plugin(RootsInFlightPlugin(s, self.workers))
        for timer in s.periodic_callbacks.values():
            timer.start()
        # For the trace's ``root`` flag: tasks whose inputs are all constants.
        self._roots = {k for k, n in model.dsk.items() if type(n) is not DataNode
                       and all(type(model.dsk.get(d)) is DataNode for d in n.dependencies)}

    # -- helpers for records --------------------------------------------------------------
    def group(self, key) -> str:
        name = key[0] if type(key) is tuple else key
        g = self._groups.get(name)
        if g is None:
            g = self._groups[name] = key_split(name)
        return g

    def is_root(self, key) -> bool:
        return key in self._roots

    # -- the scheduler's single CPU -------------------------------------------------------
    def scheduler_work(self, fn, *args, messages: int = 1) -> None:
        """Run ``fn`` as scheduler work: after whatever it is busy with, plus its service
        time per message."""
        start = max(self.clock.now, self._busy_until)
        self._busy_until = start + self.scheduler_time * messages
        self.clock.call_at_marked(self._busy_until, fn, *args)

    def from_worker(self, worker: str, msgs: list) -> None:
        """A batch from a worker's stream arrives: handled in one go, as dask's
        ``handle_stream`` does, costing the service time of each message."""
        self.scheduler_work(self._handle_batch, worker, msgs, messages=len(msgs))

    def _handle_batch(self, worker: str, msgs: list) -> None:
        self.messages += len(msgs)
        handlers = self.scheduler.stream_handlers
        for msg in msgs:
            handlers[msg.pop("op")](worker=worker, **msg)

    # -- running ----------------------------------------------------------------------------
    def submit(self) -> None:
        s = self.scheduler
        model = self.model
        priorities = model.priorities
        s.clients[CLIENT] = ClientState(CLIENT)
        kwargs = dict(
            start=0.0, dsk=model.dsk, keys=set(model.keys), ordered=priorities, client=CLIENT,
            annotations_by_type=model.annotations, global_annotations=None,
            stimulus_id="update-graph-0",
            submitting_task=None, span_metadata={}, user_priority=0, actors=None,
            fifo_timeout=0.0, code=(),
        )
        accepted = inspect.signature(s._create_taskstate_from_graph).parameters
        if "dependencies" in accepted:  # before 2025.5
            kwargs["dependencies"] = {k: set(v.dependencies) for k, v in model.dsk.items()}

        def update_graph():
            enabled = gc.isenabled()
            with collector.paused():
                s._create_taskstate_from_graph(
                    **{k: v for k, v in kwargs.items() if k in accepted})
                if enabled:
                    # The new TaskStates live as long as the run (see collector.fewer).
                    # Frozen before collection resumes, which would first walk them all.
                    gc.freeze()

        self.scheduler_work(update_graph)

    def progress(self) -> int:
        return self.scheduler.transition_counter + sum(
            w.state.transition_counter for w in self.workers.values())

    def run(self) -> float:
        """Submit the graph, run to the end; the virtual time when every output is in memory.
        A scheduler plugin that raises (dask logs and swallows it) fails the run."""
        self._outputs = list(self.model.keys)
        caught = _PluginErrors()
        log = logging.getLogger("distributed.scheduler")
        log.addHandler(caught)
        level = log.level
        if not log.isEnabledFor(logging.INFO):
            log.setLevel(logging.INFO)  # dask reports plugin errors at INFO
        try:
            with collector.fewer(), _hosts_remembered():
                self.submit()
                self.clock.run(self.done, self.progress)
        finally:
            log.removeHandler(caught)
            log.setLevel(level)
        if self.scheduler.validate:
            self.scheduler.validate_state()
            for w in self.workers.values():
                w.state.validate_state()
        if caught.records:
            rec = caught.records[0]
            raise PluginFailed(f"{len(caught.records)} plugin errors in the twin; first: "
                               f"{logging.Formatter().formatException(rec.exc_info)}")
        return self.clock.now

    def done(self) -> bool:
        """Every output in memory (or erred). Asked after every event: it resumes from the
        last output still missing, so a whole run costs O(outputs) here."""
        tasks = self.scheduler.tasks
        outs = self._outputs
        while outs:
            ts = tasks.get(outs[-1])
            if ts is None or ts._state not in ("memory", "erred"):  # ._state: no property call
                return False
            outs.pop()
        return True
