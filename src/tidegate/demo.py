"""``tidegate demo``: the seed's problem and its fix, on this machine.

A vorticity-like pipeline over zarr runs on a real LocalCluster under dask's eager
scheduling, dask's default queuing and tidegate's plugin, with the network between workers
limited to a known bandwidth (on localhost it is free, and the problem hides); then in
tidegate's thread runtime with a memory limit; then the same graph at the seed's scale in
the twin. One table, one report.
"""

from __future__ import annotations

import asyncio
import time

CLUSTER_MODES = ("eager", "queue", "tidegate")

# dask's own memory management off: nothing hides overproduction, nothing is killed.
QUIET_MEMORY = {
    "distributed.worker.memory.target": False,
    "distributed.worker.memory.spill": False,
    "distributed.worker.memory.pause": False,
    "distributed.worker.memory.terminate": False,
}


def _worker_plugins():
    """Built lazily: distributed is an optional extra."""
    from distributed import WorkerPlugin

    class SlowNetwork(WorkerPlugin):
        """Each transfer into a worker takes ``nbytes / bandwidth`` more: localhost's free
        network hides what co-assignment saves on a real one."""

        name = "tidegate-slow-network"

        def __init__(self, bandwidth: float):
            self.bandwidth = float(bandwidth)

        def setup(self, worker):
            original, bandwidth = worker.gather_dep, self.bandwidth

            async def gather_dep(w, to_gather, total_nbytes, *, stimulus_id):
                await asyncio.sleep(total_nbytes / bandwidth)
                return await original(w, to_gather, total_nbytes, stimulus_id=stimulus_id)

            worker.gather_dep = gather_dep  # the state machine looks it up on the instance

    class PeakMemory(WorkerPlugin):
        """Peak RSS above the worker's level at setup (sampled every 10 ms) and peak bytes
        of results held (``worker.state.nbytes``)."""

        name = "tidegate-peak-memory"

        def setup(self, worker):
            import psutil
            from tornado.ioloop import PeriodicCallback

            self.worker = worker
            self.proc = psutil.Process()
            self.base = self.rss = self.proc.memory_info().rss
            self.managed = 0
            self.pc = PeriodicCallback(self.sample, 10)
            self.pc.start()

        def sample(self):
            self.rss = max(self.rss, self.proc.memory_info().rss)
            self.managed = max(self.managed, self.worker.state.nbytes)

        def transition(self, key, start, finish, **kwargs):
            self.managed = max(self.managed, self.worker.state.nbytes)

        def teardown(self, worker):
            self.pc.stop()

    return SlowNetwork, PeakMemory


def _peaks(dask_worker) -> dict:
    p = dask_worker.plugins["tidegate-peak-memory"]
    p.sample()
    return {
        "rss": p.rss - p.base,
        "managed": p.managed,
        "sent": dask_worker.transfer_outgoing_bytes_total,
    }


def run_cluster(build, mode: str, workers: int, threads: int, bandwidth: float | None) -> dict:
    """One run of ``build()`` (a lazy dask collection) on a fresh LocalCluster of worker
    processes, so every worker's memory starts clean. ``mode``: eager, queue or tidegate."""
    import dask
    from distributed import Client, LocalCluster, wait

    from . import recording
    from .distributed import Plugin

    if mode not in CLUSTER_MODES:
        raise ValueError(f"mode must be one of {CLUSTER_MODES}, got {mode!r}")
    SlowNetwork, PeakMemory = _worker_plugins()
    config = dict(QUIET_MEMORY)
    config["distributed.scheduler.worker-saturation"] = float("inf") if mode == "eager" else 1.1
    with dask.config.set(config), LocalCluster(
        n_workers=workers, threads_per_worker=threads, processes=True, memory_limit=0,
        dashboard_address=":0",
    ) as cluster, Client(cluster) as client:  # fmt: skip
        client.register_plugin(PeakMemory())
        if bandwidth:
            client.register_plugin(SlowNetwork(bandwidth))
        if mode == "tidegate":
            client.register_plugin(Plugin())
        x = build()
        with recording.record(None, name=mode) as rec:
            t0 = time.perf_counter()
            f = client.compute(x)
            wait(f)
            wall = time.perf_counter() - t0
            f.result()
            del f
        peaks = client.run(_peaks)
    trace = rec.traces[0] if rec.traces else None
    return {
        "mode": mode,
        "wall": wall,
        "peak_rss_per_worker": [p["rss"] for p in peaks.values()],
        "peak_held_per_worker": [p["managed"] for p in peaks.values()],
        "bytes_transferred": sum(p["sent"] for p in peaks.values()),
        "trace": trace,
    }
