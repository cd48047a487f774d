"""The twin: dask.distributed's own scheduler and workers on a virtual clock.

``simulate(x, workers=20, threads_per_worker=4, policy=["eager", "queue", "tidegate"])``
runs the graph of ``x`` (never its data) as dask would on that cluster: "eager" is dask
with ``worker-saturation: inf``, "queue" dask's default (1.1), "tidegate" the
:class:`tidegate.distributed.Plugin` installed unchanged on the simulated scheduler.
"""

from __future__ import annotations

import datetime
import logging
import math
import multiprocessing
import numbers
from dataclasses import dataclass

import dask.config
from dask.utils import parse_bytes, parse_timedelta

from ..config import count, duration, rate
from ..trace import Trace
from .clock import Stalled
from .cluster import SimCluster
from .model import Model, build_model
from .processes import idle_cores, run_all

__all__ = ["simulate", "SimResult", "Stalled", "POLICIES"]

POLICIES = ("eager", "queue", "tidegate")


@dataclass
class SimResult:
    policy: str
    peak_memory_per_worker: list[int]  # max over time of bytes held in each worker's memory
    makespan: float  # virtual seconds from submission until every output is in memory
    bytes_transferred: int
    trace: Trace
    messages: int  # worker -> scheduler messages handled
    unknown_sizes: int  # tasks whose output size nobody knew (counted as model.UNKNOWN_SIZE)

    def summary(self) -> dict:
        return {
            "peak_memory_per_worker": self.peak_memory_per_worker,
            "makespan": self.makespan,
            "bytes_transferred": self.bytes_transferred,
        }


def simulate(
    x,
    *,
    workers: int,
    threads_per_worker: int,
    policy="tidegate",
    bandwidth="1GB/s",
    outgoing_bandwidth=None,
    latency="1ms",
    durations=None,
    sizes=None,
    seed: int = 0,
    keys=None,
    scheduler_time="100us",
    loop_lag=0.0,
    thread_lag=None,
    worker_memory_limit=None,
    stealing: bool | None = None,
    validate: bool = False,
    record_memory: bool = True,
    processes: int | None = None,
    **plugin_options,
):
    """Run ``x`` (a dask collection, a list of them, a graph mapping with ``keys=``, or a
    :class:`~tidegate.sim.model.Model` built once for several calls) on
    a simulated cluster of ``workers`` x ``threads_per_worker``; nothing is computed.

    ``policy``: "eager", "queue" or "tidegate", or a list of them (one result each, same
    graph). ``bandwidth``: each worker's incoming bytes/s (transfers queue per receiver);
    ``outgoing_bandwidth``: each worker's outgoing bytes/s, shared by the transfers it sends
    (default: ``bandwidth``; ``math.inf``: senders are not a bottleneck);
    ``latency``: one way, per message and per transfer. ``durations`` (s) / ``sizes``
    (bytes): a number, a mapping from key or group name to a value, or a callable taking the
    key (None: use the default model, see :mod:`tidegate.sim.model`). ``scheduler_time``:
    scheduler CPU per message handled. ``loop_lag`` (s): how long a dask server's event
    loop takes to notice an event, e.g. on a busy machine (see :mod:`.cluster`); added once
    per message batch and per transfer, twice per task (the hand-off to the worker's thread
    pool and back). A list of lags (s) instead: each event draws one of them, seeded by
    ``seed`` (see :mod:`.lag`). ``thread_lag`` (s, or a list each task draws from): how
    much longer than its duration a task holds its thread, instead of ``2 x loop_lag``.
    ``worker_memory_limit``: each worker's memory_limit (what dask's transfer throttle and a
    fractional tidegate budget refer to); no spilling or pausing is simulated. ``stealing``: dask's
    work stealing (default: dask.config). ``plugin_options`` go to
    :class:`tidegate.distributed.Plugin` (``saturation``, ``memory_limit``: the budget of held bytes
    per worker, ...). ``validate``: dask's own checks on the scheduler and every worker after each
    event, and their transition logs (``story()``); without it they keep none (see :mod:`.quiet`).
    ``record_memory``: keep a memory sample per change in the trace (peaks are kept either way).
    ``seed``: where ties between equally good workers fall. dask breaks them by iterating sets of
    workers, whose order follows each worker's random id (a uuid); the twin salts its workers'
    hashes with ``seed`` instead (0: unsalted). Lags given as lists of observed values are
    drawn from generators seeded by ``seed`` too; there is no other randomness (dask's
    workers seed their own). Results
    and traces are identical for identical inputs, in one process or in several, whatever
    their ``PYTHONHASHSEED`` (see :mod:`tidegate.sim.hashing`). ``processes``: for a list
    of policies, how many run at once, each in a child process (default: one per idle
    core, see :func:`.processes.idle_cores`; 1: one after another, in this process); the
    same results either way (see :mod:`.processes`). Each child holds its own copy of the
    run, so peak memory adds up.
    """
    policies = [policy] if isinstance(policy, str) else list(policy)
    for p in policies:
        if p not in POLICIES:
            raise ValueError(f"unknown policy {p!r}; choose from {', '.join(POLICIES)}")
    # The command line's checks (config), before any work: workers=0 stalled, bandwidth=0
    # divided by zero, latency=-1 was garbled by parse_timedelta (review21).
    opts = dict(
        workers=count(workers, "workers"),
        threads_per_worker=count(threads_per_worker, "threads_per_worker"),
        bandwidth=rate(bandwidth, "bandwidth"), latency=duration(latency, "latency"),
        outgoing_bandwidth=None if outgoing_bandwidth is None
        else rate(outgoing_bandwidth, "outgoing_bandwidth"),
        scheduler_time=duration(scheduler_time, "scheduler_time"), loop_lag=_lag(loop_lag),
        thread_lag=None if thread_lag is None else _lag(thread_lag),
        memory_limit=int(parse_bytes(worker_memory_limit)) if isinstance(worker_memory_limit, str)
        else int(worker_memory_limit or 0),
        stealing=(dask.config.get("distributed.scheduler.work-stealing")
                  if stealing is None else stealing),
        validate=validate, record_memory=record_memory,
    )
    if processes is not None:
        processes = count(processes, "processes")
    model = x if isinstance(x, Model) else build_model(x, keys, sizes=sizes, durations=durations)
    jobs = [(model, p, seed, plugin_options, opts) for p in policies]
    n = min(len(jobs), idle_cores() if processes is None else processes)
    if n > 1 and not multiprocessing.current_process().daemon:  # a daemon may not fork
        model.priorities, model.hashes  # noqa: B018  (once, before the children share them)
        results = run_all(_run_job, jobs, n, labels=policies)
    else:
        results = [_run_job(*job) for job in jobs]
    return results[0] if isinstance(policy, str) else results


def _run_job(model: Model, policy: str, seed: int, plugin_options: dict, opts: dict):
    return _run(model, policy, seed, plugin_options, **opts)


def _lag(value):
    """A duration (number, "5ms" or a timedelta), or a list of observed lags in seconds
    (see .lag)."""
    if isinstance(value, numbers.Real):
        return float(value)  # seconds; checked by Lag (parse_timedelta garbles a negative)
    if isinstance(value, (str, datetime.timedelta)):
        return parse_timedelta(value)
    return [float(v) for v in value]


def _run(model: Model, policy: str, seed: int, plugin_options: dict, **opts) -> SimResult:
    saturation = math.inf if policy == "eager" else 1.1
    meta = {
        "name": policy, "body": "twin", "policy": policy, "seed": seed,
        "bandwidth": opts["bandwidth"], "latency": opts["latency"],
        "scheduler_time": opts["scheduler_time"], "loop_lag": opts["loop_lag"],
        "threads_per_worker": opts["threads_per_worker"],
    }
    if opts["memory_limit"]:
        meta["memory_limit"] = opts["memory_limit"]
    if opts["thread_lag"] is not None:
        meta["thread_lag"] = opts["thread_lag"]
    trace = Trace(meta=meta)
    cfg = {"distributed.scheduler.worker-saturation": saturation}
    if not opts["validate"]:
        # Each WorkerState keeps its last N transitions and stimuli (a failed validation
        # prints them): dask keeps 1,000 each, about half a GB over 1,000 workers. Without
        # validation the twin's copies of dask's methods append nothing (.quiet); the cap
        # holds for any that could not be copied.
        cfg["distributed.admin.low-level-log-length"] = min(
            100, dask.config.get("distributed.admin.low-level-log-length"))
    quiet = logging.getLogger("distributed.scheduler")
    level = quiet.level
    quiet.setLevel(max(level, logging.WARNING))  # "State start" per run is noise here
    try:
        with dask.config.set(cfg):
            cluster = SimCluster(model, trace=trace, seed=seed, **opts)
    finally:
        quiet.setLevel(level)
    with dask.config.set(cfg):
        if policy == "tidegate":
            from ..distributed import Plugin

            plugin = Plugin(**plugin_options)
            cluster.scheduler.add_plugin(plugin, name=plugin.name)
            plugin.install(cluster.scheduler)
            cluster.plugin = plugin
        makespan = cluster.run()
        if policy == "tidegate":
            plugin.uninstall()
    trace.meta["workers"] = {a: opts["threads_per_worker"] for a in cluster.workers}
    trace.meta["makespan"] = makespan
    trace.meta["scheduler_bandwidth"] = cluster.scheduler.bandwidth  # learnt (.heartbeats)
    return SimResult(
        policy=policy,
        peak_memory_per_worker=[w.peak for w in cluster.workers.values()],
        makespan=makespan,
        bytes_transferred=cluster.bytes_transferred,
        trace=trace,
        messages=cluster.messages,
        unknown_sizes=model.unknown,
    )
