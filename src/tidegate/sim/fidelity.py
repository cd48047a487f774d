"""The same graph on a real LocalCluster and on the twin, for checking one against the other.

Tasks are sleeps returning a :class:`~tidegate.sim.worker.Blob` of a known size (its
``sizeof`` is that size; no memory is used). The real cluster runs in this process
(``processes=False``) with dask's spilling and pausing off; its network is slowed to a
known bandwidth by delaying each fetch by latency + bytes / bandwidth, one transfer at a
time per receiving worker (the twin's model), inside the window dask times to learn its
bandwidth estimate (see :mod:`tidegate.sim.heartbeats`). Peaks are of
``worker.state.nbytes``, read after every transition on the worker.

The real run also measures its event loop's lag: per task, half of how much longer it held
its thread (from the worker's ``executing`` transition to ``memory``) than its sleep
(:attr:`Run.lags`), and their median (:attr:`Run.loop_lag`). In-process, the scheduler and
the 4 workers share one event loop and one GIL with 8 threads; on a loaded 2-core machine a
task overruns its sleep by 1-60 ms (median 4-17 ms), against tasks of 50-350 ms. It also
times each message hop (:attr:`Run.to_worker`, :attr:`Run.to_scheduler`): a median of 1-4
ms with batching at load 3-8, less than a task's overrun. So the bench gives the twin the
median overrun as ``thread_lag`` and no ``loop_lag`` on messages (bench/sim_fidelity.py).
"""

from __future__ import annotations

import asyncio
import math
import time
from dataclasses import dataclass, field

import dask

from ..testing import QUIET_MEMORY
from . import simulate
from .worker import Blob


def sleep_blob(duration: float, nbytes: int, *inputs) -> Blob:
    time.sleep(duration)
    return Blob(nbytes)


@dataclass
class Graph:
    name: str
    dsk: dict  # {key: (sleep_blob, duration, nbytes, *deps)}
    keys: list

    @property
    def durations(self) -> dict:
        return {k: v[1] for k, v in self.dsk.items()}

    @property
    def sizes(self) -> dict:
        return {k: v[2] for k, v in self.dsk.items()}


@dataclass
class Run:
    peak_memory_per_worker: list[int]
    makespan: float
    bytes_transferred: int
    loop_lag: float = 0.0  # s, measured (see the module's docstring)
    lags: list = field(default_factory=list)  # s, one per task (see the module's docstring)
    # s, per task run: compute-task from the scheduler's transition to ``processing`` to the
    # worker's first transition of the key; task-finished from the worker's transition to
    # ``memory`` to the scheduler's. Batching, comm and both event loops included.
    to_worker: list = field(default_factory=list)
    to_scheduler: list = field(default_factory=list)


def run_real(graph: Graph, policy: str, *, workers=4, threads=2, bandwidth=200e6,
             latency=0.001) -> Run:
    """Run on a fresh in-process LocalCluster with ``policy``; peaks, wall time, bytes."""
    from distributed import Client, LocalCluster, SchedulerPlugin, WorkerPlugin

    import distributed.worker

    addresses: set = set()  # the workers', once the cluster is up
    locks: dict = {}  # receiving worker -> its network link
    moved: dict = {}
    fetch = distributed.worker.get_data_from_worker

    async def slowed_fetch(rpc, keys, worker, who=None, **kwargs):
        # Inside the window the worker times (and learns its bandwidth from, as dask
        # does on a real network): one transfer at a time per receiver, as in the twin.
        # The client's gather of the results is not a transfer between workers.
        if who not in addresses:
            return await fetch(rpc, keys, worker, who=who, **kwargs)
        async with locks.setdefault(who, asyncio.Lock()):
            nbytes = sum(graph.dsk[k][2] for k in keys)
            await asyncio.sleep(latency + nbytes / bandwidth)
            moved[who] = moved.get(who, 0) + nbytes
            return await fetch(rpc, keys, worker, who=who, **kwargs)

    class Instrument(WorkerPlugin):
        name = "tidegate-fidelity"

        def setup(self, worker):
            self.worker, self.peak = worker, 0
            self.began, self.overruns = {}, []
            self.arrived, self.done = {}, {}  # key -> perf_counter (message hops)

        def transition(self, key, start, finish, **kwargs):
            self.peak = max(self.peak, self.worker.state.nbytes)
            if start == "released" and finish in ("waiting", "ready"):
                self.arrived.setdefault(key, time.perf_counter())
            if finish == "executing":
                self.began[key] = time.perf_counter()
            elif start == "executing" and finish == "memory" and key in self.began:
                now = time.perf_counter()
                self.done[key] = now
                self.overruns.append(now - self.began.pop(key) - graph.dsk[key][1])

    class Hops(SchedulerPlugin):  # in this process: the same clock as the workers'
        def __init__(self):
            self.sent, self.finished = {}, {}

        def transition(self, key, start, finish, *args, **kwargs):
            if finish == "processing":
                self.sent[key] = time.perf_counter()
            elif start == "processing" and finish == "memory":
                self.finished[key] = time.perf_counter()

    cfg = {
        "distributed.worker.memory.target": False, "distributed.worker.memory.spill": False,
        "distributed.worker.memory.pause": False, "distributed.worker.memory.terminate": False,
        "distributed.scheduler.worker-saturation": math.inf if policy == "eager" else 1.1,
        "distributed.admin.system-monitor.gil.enabled": False,
    }
    with dask.config.set(cfg):
        hops = Hops()
        plugins = [hops]
        if policy == "tidegate":
            from ..distributed import Plugin

            plugins.append(Plugin())
        with LocalCluster(n_workers=workers, threads_per_worker=threads, processes=False,
                          dashboard_address=":0", scheduler_kwargs={"plugins": plugins},
                          memory_limit=0) as cluster, Client(cluster) as client:
            client.register_plugin(Instrument())
            addresses.update(client.run_on_scheduler(_worker_addresses))
            distributed.worker.get_data_from_worker = slowed_fetch
            try:
                t0 = time.perf_counter()
                client.get(graph.dsk, graph.keys, sync=True)
                makespan = time.perf_counter() - t0
            finally:
                distributed.worker.get_data_from_worker = fetch
            mine = client.run(lambda dask_worker: dask_worker.plugins["tidegate-fidelity"])
    lags = sorted(max(0.0, x / 2) for p in mine.values() for x in p.overruns)
    lag = lags[len(lags) // 2] if lags else 0.0
    # a key's hops on the worker that ran it (a fetched copy also arrives elsewhere)
    to_worker = sorted(p.arrived[k] - hops.sent[k] for p in mine.values() for k in p.done
                       if k in p.arrived and k in hops.sent)
    to_scheduler = sorted(hops.finished[k] - p.done[k] for p in mine.values() for k in p.done
                          if k in hops.finished)
    return Run([p.peak for p in mine.values()], makespan, sum(moved.values()), lag, lags,
               to_worker, to_scheduler)


def _worker_addresses(dask_scheduler) -> list[str]:
    # read on the scheduler: client.scheduler_info() races the client's periodic update,
    # which asks for no workers, and can come back with none
    return list(dask_scheduler.workers)


def run_twin(graph: Graph, policy: str, *, workers=4, threads=2, bandwidth=200e6,
             latency=0.001, **kwargs):
    """The twin on these graphs. To compare with :func:`run_real`, pass
    ``outgoing_bandwidth=math.inf``: the real bench slows receivers only (an in-process
    sender hands its data over at once); the twin's default also queues copies on each
    sender's link."""
    return simulate(graph.dsk, keys=graph.keys, workers=workers, threads_per_worker=threads,
                    policy=policy, bandwidth=bandwidth, latency=latency,
                    durations=graph.durations, sizes=graph.sizes, **kwargs)


# -- the graphs ------------------------------------------------------------------------
MB = 10**6


def stack_sum(steps=32, chunk=20 * MB, load=0.2, compute=0.05, store=0.3) -> Graph:
    """Seed workload: two loads per step, summed, stored."""
    dsk = {}
    for t in range(steps):
        dsk[("load-a", t)] = (sleep_blob, load, chunk)
        dsk[("load-b", t)] = (sleep_blob, load, chunk)
        dsk[("sum", t)] = (sleep_blob, compute, chunk, ("load-a", t), ("load-b", t))
        dsk[("store", t)] = (sleep_blob, store, 0, ("sum", t))
    return Graph("stack-sum", dsk, [("store", t) for t in range(steps)])


def vorticity(steps=32, chunk=20 * MB, load=0.2, compute=0.05, store=0.3) -> Graph:
    """Seed workload: two opens per step, three shared grid chains, compute-and-store."""
    dsk = {}
    for g in ("dx", "dy", "area"):
        dsk[f"open-{g}"] = (sleep_blob, load, chunk)
        dsk[f"grid-{g}"] = (sleep_blob, compute, chunk, f"open-{g}")
    for t in range(steps):
        dsk[("open-u", t)] = (sleep_blob, load, chunk)
        dsk[("open-v", t)] = (sleep_blob, load, chunk)
        dsk[("vorticity-store", t)] = (sleep_blob, compute + store, 0, ("open-u", t),
                                       ("open-v", t), "grid-dx", "grid-dy", "grid-area")
    return Graph("vorticity", dsk, [("vorticity-store", t) for t in range(steps)])


def unique_loaders(steps=32, chunk=20 * MB, load=0.2, compute=0.05) -> Graph:
    """Loads with unique key names (each its own group: dask's root heuristic misses
    them), reduced pairwise in a tree."""
    dsk = {}
    layer = []
    for t in range(steps):
        k = f"load_{t:04d}x"
        dsk[k] = (sleep_blob, load, chunk)
        layer.append(k)
    level = 0
    while len(layer) > 1:
        nxt = []
        for i in range(0, len(layer), 2):
            k = ("combine", level, i // 2)
            dsk[k] = (sleep_blob, compute, chunk, *layer[i:i + 2])
            nxt.append(k)
        layer, level = nxt, level + 1
    return Graph("unique-loaders", dsk, layer)


def weighted(steps=32, chunk=20 * MB, load=0.2, compute=0.05, store=0.3) -> Graph:
    """Shared inputs: two weight fields every step uses, one load per step, stored."""
    dsk = {"w1": (sleep_blob, load, chunk), "w2": (sleep_blob, load, chunk)}
    for t in range(steps):
        dsk[("load", t)] = (sleep_blob, load, chunk)
        dsk[("weighted", t)] = (sleep_blob, compute, chunk, ("load", t), "w1", "w2")
        dsk[("store", t)] = (sleep_blob, store, 0, ("weighted", t))
    return Graph("weighted", dsk, [("store", t) for t in range(steps)])


GRAPHS = {g.__name__.replace("_", "-"): g for g in (stack_sum, vorticity, unique_loaders, weighted)}
