"""``tidegate demo``: the seed's problem and its fix, on this machine.

A vorticity-like pipeline over zarr runs on a real LocalCluster under dask's eager
scheduling, dask's default queuing and tidegate's plugin, with the network between workers
limited to a known bandwidth (on localhost it is free, and the problem hides); then in
tidegate's thread runtime with a memory limit; then the same graph at the seed's scale in
the twin. One table, one report.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
import time

CLUSTER_MODES = ("eager", "queue", "tidegate")

from .testing import QUIET_MEMORY  # dask's own memory management off


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
        "base": p.base,
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


# -- the demo -------------------------------------------------------------------------------
def main(args) -> int:
    from dask.utils import format_bytes, parse_bytes
    from rich.console import Console

    from .compare import run_isolated
    from .config import rate
    from .report import report
    from .trace import Trace
    from .workloads import CHUNK_BYTES, STEPS_PER_CHUNK, build, make_inputs

    console = Console(width=max(132, Console().width))
    limit = parse_bytes(args.memory_limit)
    # The command line's own check (config.rate): blank is free, "200MB/s " a rate.
    free = not (args.bandwidth or "").strip()
    bandwidth = None if free else rate(args.bandwidth)
    network = "unlimited" if free else args.bandwidth.strip()
    size = 2 * args.steps * CHUNK_BYTES // STEPS_PER_CHUNK
    what = ("the seed's pipeline (dask/distributed#6360: per time step an open per file, a "
            "read, the vorticity against shared grid fields, a store)"
            if args.workload == "vorticity-files"
            else f"the seed workload {args.workload!r} of dask/distributed#6360")
    console.print(
        f"[bold]tidegate demo[/]: {what} over "
        f"{format_bytes(size)} of zarr written to a temporary folder.\n"
        f"  1. a LocalCluster of {args.workers} worker processes x {args.threads} threads, "
        f"network {network} per worker: dask eager, dask queuing, tidegate\n"
        f"  2. one process, {args.threads} threads: dask threaded, tidegate with "
        f"memory_limit={args.memory_limit}\n"
        f"  3. the twin at the seed's scale: {args.workload}, {args.twin_steps} steps of 190 MB, "
        f"{args.twin_workers} workers x 4 threads\n"
        f"This takes about {_estimate_minutes(args)} minutes and "
        f"{format_bytes(size + 2e9)} of memory and disk at most."
    )
    folder = tempfile.mkdtemp(prefix="tidegate-demo-", dir=args.tmpdir)
    rows, traces, twin_traces = [], [], []
    try:
        with console.status(f"writing {format_bytes(size)} of zarr input ..."):
            inputs = make_inputs(folder, args.steps)
        for mode in CLUSTER_MODES:
            with console.status(f"cluster: dask {mode} ..." if mode != "tidegate"
                                else "cluster: tidegate's plugin ..."):
                out = tempfile.mkdtemp(dir=folder)
                r = run_cluster(lambda: build(args.workload, inputs, out), mode,
                                args.workers, args.threads, bandwidth)  # noqa: B023
                shutil.rmtree(out, ignore_errors=True)
            label = {"eager": "dask eager", "queue": "dask queuing"}.get(mode, "tidegate plugin")
            rows.append(("cluster", label, max(r["peak_rss_per_worker"]),
                         max(r["peak_held_per_worker"]), r["wall"], r["bytes_transferred"], 0))
            if r["trace"] is not None:
                r["trace"].meta["name"] = f"cluster: {label}"
                traces.append(r["trace"])
            console.print(f"  cluster, {label}: {r['wall']:.1f} s")
        plan = [("dask threaded", "threads", None),
                (f"tidegate, memory_limit={args.memory_limit}", "tidegate", limit)]
        for label, scheduler, budget in plan:
            with console.status(f"one process: {label} ..."):
                tpath = os.path.join(folder, "local.jsonl")
                m = run_isolated(args.workload, scheduler, inputs, args.threads, budget,
                                 trace_path=tpath if scheduler == "tidegate" else None)
            rows.append(("one process", label, m.peak_rss, m.peak_held or None, m.wall_time,
                         0, m.spilled))
            if os.path.exists(tpath) and scheduler == "tidegate":
                tr = Trace.load(tpath)
                tr.meta["name"] = f"threads: {label}"
                traces.append(tr)
            console.print(f"  one process, {label}: {m.wall_time:.1f} s")
            more = (m.stats or {}).get("limit_for_all_threads", 0)
            if more:  # the run's own notice (logged in its process): say it here too
                console.print(f"    {args.memory_limit} ran fewer tasks at once than "
                              f"{args.threads} threads; about {format_bytes(int(more))} "
                              f"would run {args.threads}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if args.twin_steps:
        with console.status("twin: the seed's scale ..."):
            t0 = time.perf_counter()
            results = twin_runs(args.workload, args.twin_steps, args.twin_workers)
        for r in results:
            label = {"eager": "dask eager", "queue": "dask queuing"}.get(
                r.policy, "tidegate plugin")
            rows.append(("twin", label, None, max(r.peak_memory_per_worker), r.makespan,
                         r.bytes_transferred, 0))
            r.trace.meta["name"] = f"twin: {label}"
            twin_traces.append(r.trace)
        console.print(f"  twin: simulated in {time.perf_counter() - t0:.0f} s")
    console.print(_table(rows, args))
    paths = []
    if args.report and traces:
        paths.append(report(traces, args.report, title="tidegate demo: this machine"))
    if args.report and twin_traces:
        stem, ext = os.path.splitext(args.report)
        paths.append(report(twin_traces, f"{stem}-twin{ext}",
                            title="tidegate demo: the twin at the seed's scale"))
    for p in paths:
        console.print(f"report: {os.path.abspath(p)}")
    console.print(f"temporary input removed: {not os.path.exists(folder)}")
    return 0


# The twin's workload for each of the demo's (sim.workloads names the vorticity "vorticity").
TWIN_WORKLOAD = {"vorticity-files": "vorticity"}


def twin_runs(workload: str, steps: int, workers: int) -> list:
    """The demo's workload in the twin at the seed's scale: ``steps`` steps of 190 MB on
    ``workers`` workers x 4 threads, under eager, queue and tidegate. (It ran the twin's
    vorticity whatever ``--workload`` said, under a table titled with that workload.)"""
    from .sim import simulate
    from .sim.workloads import build as twin_build

    # as the cluster runs above send it: stores returning None, one final task
    work = twin_build(TWIN_WORKLOAD.get(workload, workload), steps, 190e6, store=True)
    return simulate(work.model(), workers=workers, threads_per_worker=4,
                    policy=["eager", "queue", "tidegate"], bandwidth="1GB/s")


def _estimate_minutes(args) -> int:
    per_run = 3 + args.steps * 0.12  # cluster start + the pipeline, measured on 2 cores
    twin = args.twin_steps * args.twin_workers / 4000
    return max(1, round((5 * per_run + twin + args.steps * 0.1) / 60 + 0.5))


def _table(rows, args):
    from dask.utils import format_bytes
    from rich.table import Table

    table = Table(title=f"{args.workload}: peak memory per worker and time, side by side")
    for col in ("where", "scheduler", "peak RSS", "peak held", "vs first", "time",
                "vs first", "transferred", "spilled"):
        table.add_column(col, justify="left" if col in ("where", "scheduler") else "right")
    first: dict = {}
    for where, label, rss, held, wall, sent, spilled in rows:
        mem = rss if rss is not None else held
        base_mem, base_wall = first.setdefault(where, (mem, wall))
        table.add_row(
            where, label,
            format_bytes(rss) if rss is not None else "-",
            format_bytes(held) if held else "-",
            f"{mem / base_mem:.2f}x" if base_mem else "-",
            f"{wall:.1f} s", f"{wall / base_wall:.2f}x" if base_wall else "-",
            format_bytes(sent) if sent else "-",
            format_bytes(spilled) if spilled else "-",
        )  # fmt: skip
    return table
