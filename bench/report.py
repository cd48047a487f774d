"""Report generation time for large traces: HTML (bokeh) and PNG (matplotlib).

A trace shaped like a cluster run (8 workers x 4 threads, tasks back to back on each thread,
groups cycling like a load -> transform -> reduce pipeline, a memory sample per worker per
task end, some spills) of --tasks tasks; times ``report()``, ``save_png()``, and
``Trace.save``/``load``, median of --reps, and the HTML size.

    python bench/report.py [--tasks 100000] [--reps 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time

import numpy as np
from rich.console import Console
from rich.table import Table

from tidegate.report import report, save_png, task_rects
from tidegate.trace import Memory, SpillEvent, TaskEnd, Trace

HERE = os.path.dirname(os.path.abspath(__file__))
GROUPS = ["open", "load", "subtract", "mean-chunk", "mean-combine", "store"]


def synthetic(ntasks: int, workers: int = 8, threads: int = 4, seed: int = 0) -> Trace:
    rng = np.random.default_rng(seed)
    names = [f"tcp://10.0.0.{w}:4000" for w in range(workers)]
    clock = np.zeros((workers, threads))
    held = np.zeros(workers)
    tr = Trace(meta={"name": f"synthetic {ntasks:,}", "body": "twin", "policy": "tidegate",
                     "workers": dict.fromkeys(names, threads), "memory_limit": 2 * 2**30})
    durations = rng.exponential(0.05, ntasks)
    sizes = rng.integers(1, 64, ntasks) * 2**20
    for i in range(ntasks):
        w, t = i % workers, (i // workers) % threads
        start = clock[w, t] + rng.exponential(0.002)
        stop = clock[w, t] = start + durations[i]
        group = GROUPS[(i // (workers * threads)) % len(GROUPS)]
        tr.tasks.append(TaskEnd(f"('{group}-abc', {i})", group, names[w], t, start, stop,
                                int(sizes[i]), group == "load"))
        held[w] = max(0.0, held[w] + (sizes[i] if group in ("load", "subtract") else -sizes[i]))
        tr.memory.append(Memory(stop, names[w], int(held[w]), int(held[w] + 3e8),
                                int(rng.integers(0, 5)), 0))
        if i % 97 == 0:
            tr.spills.append(SpillEvent(stop, names[w], f"k{i}", int(sizes[i]), "spill"))
    return tr


def timed(fn, reps):
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tasks", type=int, default=100_000)
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    tr = synthetic(args.tasks)
    rows = {}
    with tempfile.TemporaryDirectory() as d:
        html = os.path.join(d, "r.html")
        rows["report() HTML"], _ = timed(lambda: report([tr], html), args.reps)
        size = os.path.getsize(html)
        rows["save_png()"], _ = timed(lambda: save_png([tr], os.path.join(d, "r.png")), args.reps)
        rows["Trace.save"], _ = timed(lambda: tr.save(os.path.join(d, "t.jsonl")), args.reps)
        rows["Trace.load"], _ = timed(lambda: Trace.load(os.path.join(d, "t.jsonl")), args.reps)
        rows["task_rects (merge + cap)"], rects = timed(lambda: task_rects(tr), args.reps)
    table = Table(title=f"report of one trace: {len(tr.tasks):,} tasks, "
                        f"{len(tr.memory):,} memory samples, {len(tr.spills):,} spills")
    table.add_column("step")
    table.add_column("median s", justify="right")
    for k, v in rows.items():
        table.add_row(k, f"{v:.2f}")
    console = Console()
    console.print(table)
    drawn = len(rects.left)
    console.print(f"HTML {size / 2**20:.1f} MiB; {drawn:,} rectangles drawn "
                  f"(each thread's time in {rects.slices:,} slices)" if rects.slices else "")
    result = {"tasks": len(tr.tasks), "memory_samples": len(tr.memory), "reps": args.reps,
              "seconds": rows, "html_bytes": size, "rectangles_drawn": drawn,
              "slices_per_thread": rects.slices}
    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    with open(os.path.join(HERE, "results", "report.json"), "w") as f:
        json.dump(result, f, indent=2)


if __name__ == "__main__":
    main()
