"""Command line: ``tidegate demo``."""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time

from dask.utils import format_bytes, parse_bytes


def demo(args) -> int:
    from rich.console import Console
    from rich.table import Table

    from .compare import run_isolated
    from .workloads import CHUNK_BYTES, make_inputs

    console = Console(width=max(100, Console().width))
    limit = parse_bytes(args.memory_limit)
    folder = tempfile.mkdtemp(prefix="tidegate-demo-", dir=args.tmpdir)
    try:
        size = 2 * args.steps * CHUNK_BYTES // 4
        with console.status(f"writing {format_bytes(size)} of zarr input to {folder} ..."):
            t0 = time.perf_counter()
            inputs = make_inputs(folder, args.steps)
        console.print(
            f"input: 2 arrays of {args.steps} x 1000 x 1000 float64, "
            f"{format_bytes(CHUNK_BYTES)} chunks, {format_bytes(size)} "
            f"(written in {time.perf_counter() - t0:.0f} s)"
        )
        console.print(
            f"pipeline [bold]{args.workload}[/]: read both with da.from_zarr, combine, "
            f"write to zarr; {args.threads} threads"
        )
        plan = [
            ("dask threaded", "threads", None),
            ("tidegate", "tidegate", None),
            (f"tidegate, memory_limit={args.memory_limit}", "tidegate", limit),
        ]
        runs = []
        for label, scheduler, budget in plan:
            with console.status(f"running under {label} ..."):
                runs.append(run_isolated(args.workload, scheduler, inputs, args.threads, budget))
            console.print(f"  {label}: done in {runs[-1].wall_time:.1f} s")
    finally:
        shutil.rmtree(folder, ignore_errors=True)

    base = runs[0]
    table = Table(title=f"{args.workload}: peak memory (RSS above baseline) and wall time")
    for col in ("scheduler", "peak memory", "vs threaded", "wall time", "vs threaded", "spilled"):
        table.add_column(col, justify="left" if col == "scheduler" else "right")
    for (label, _, _), m in zip(plan, runs, strict=True):
        table.add_row(
            label,
            format_bytes(m.peak_rss),
            f"{m.peak_rss / base.peak_rss:.2f}x",
            f"{m.wall_time:.1f} s",
            f"{m.wall_time / base.wall_time:.2f}x",
            format_bytes(m.spilled) if m.spilled else "-",
        )
    console.print(table)
    if args.plot:
        try:
            from .report import plot_memory

            path = plot_memory(runs, [p[0] for p in plan], args.plot, f"tidegate demo: {args.workload}")
            console.print(f"memory over time: {os.path.abspath(path)}")
        except ImportError:
            console.print("(install matplotlib for a plot of memory over time)")
    console.print(f"temporary input removed: {not os.path.exists(folder)}")
    return 0


def simulate(args) -> int:
    """``tidegate simulate``: a seed workload on the twin, policies side by side."""
    import json

    from rich.console import Console
    from rich.table import Table

    from .sim import simulate as run_twin
    from .sim.workloads import build

    console = Console(width=max(100, Console().width))
    policies = [p.strip() for p in args.policy.split(",") if p.strip()]
    chunk = parse_bytes(args.chunk)
    work = build(args.workload, args.steps, chunk)
    t0 = time.perf_counter()
    with console.status(f"simulating {args.workload} ({', '.join(policies)}) ..."):
        results = run_twin(
            work.graph, keys=work.keys, sizes=work.sizes, durations=work.durations,
            workers=args.workers, threads_per_worker=args.threads, policy=policies,
            bandwidth=args.bandwidth, latency=args.latency, record_memory=False,
        )
    wall = time.perf_counter() - t0
    n = len(results[0].trace.tasks)
    table = Table(title=(
        f"{args.workload}: {args.steps} steps of {format_bytes(chunk)}, {args.workers} workers "
        f"x {args.threads} threads, {args.bandwidth} per worker (twin, {n} tasks)"
    ))
    for col in ("policy", "peak / worker (max)", "peak / worker (mean)", "vs first",
                "makespan", "vs first", "transferred"):
        table.add_column(col, justify="left" if col == "policy" else "right")
    base = results[0]
    out = {}
    for r in results:
        peak, mean = max(r.peak_memory_per_worker), sum(r.peak_memory_per_worker) / args.workers
        table.add_row(
            r.policy, format_bytes(peak), format_bytes(mean),
            f"{peak / max(1, max(base.peak_memory_per_worker)):.2f}x",
            f"{r.makespan:.1f} s", f"{r.makespan / base.makespan:.2f}x",
            format_bytes(r.bytes_transferred),
        )
        out[r.policy] = r.summary()
    console.print(table)
    console.print(f"simulated in {wall:.1f} s of wall time")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
        console.print(f"results: {os.path.abspath(args.json)}")
    return 0


def main(argv=None) -> int:
    from .workloads import WORKLOADS

    parser = argparse.ArgumentParser(prog="tidegate", description="Memory-bounded dask scheduling")
    sub = parser.add_subparsers(dest="command", required=True)
    d = sub.add_parser("demo", help="compare dask threaded and tidegate on a zarr pipeline")
    d.add_argument("--workload", default="anomaly", choices=sorted(WORKLOADS))
    d.add_argument("--steps", type=int, default=160, help="time steps per input (160: 2.6 GB)")
    d.add_argument("--threads", type=int, default=os.cpu_count() or 2)
    d.add_argument("--memory-limit", default="300MB", help="budget of the third run")
    d.add_argument("--plot", default="tidegate-demo.png", help="PNG path ('' for none)")
    d.add_argument("--tmpdir", default=None, help="where to write the temporary input")
    s = sub.add_parser("simulate", help="run a seed workload on the twin of a dask cluster")
    s.add_argument("--workload", default="vorticity", choices=sorted(WORKLOADS))
    s.add_argument("--steps", type=int, default=9000, help="time steps (one chunk each)")
    s.add_argument("--chunk", default="190MB", help="bytes per time step")
    s.add_argument("--workers", type=int, default=20)
    s.add_argument("--threads", type=int, default=4, help="threads per worker")
    s.add_argument("--policy", default="eager,queue,tidegate", help="comma-separated")
    s.add_argument("--bandwidth", default="1GB/s", help="incoming, per worker")
    s.add_argument("--latency", default="1ms")
    s.add_argument("--json", default=None, help="write {policy: numbers} here")
    args = parser.parse_args(argv)
    if args.command == "demo":
        return demo(args)
    if args.command == "simulate":
        return simulate(args)
    return 2


if __name__ == "__main__":
    sys.exit(main())
