"""Seed workloads: tidegate.get against dask's threaded scheduler, side by side in one run.

Each (workload, scheduler) pair runs in a fresh process (honest peak RSS, sampled every
10 ms); repetitions are interleaved so that machine noise hits both alike. Reports medians
and tidegate/threads ratios, prints a table and writes JSON.

    python bench/seed.py                      # 3 reps, 3.2 GB of zarr input in 32 MB chunks
    python bench/seed.py --steps 40 --reps 1  # a quick look
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import tempfile
import time

from rich.console import Console
from rich.table import Table

from tidegate.compare import run_isolated
from tidegate.workloads import CHUNK_BYTES, WORKLOADS, make_inputs

HERE = os.path.dirname(os.path.abspath(__file__))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--steps", type=int, default=200, help="time steps per input (200: 1.6 GB each)")
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--workloads", default=",".join(WORKLOADS))
    p.add_argument("--schedulers", default="threads,tidegate")
    p.add_argument("--memory-limit", type=float, default=None, help="tidegate's budget, bytes")
    p.add_argument("--json", default=os.path.join(HERE, "results", "seed.json"))
    a = p.parse_args()
    workloads = a.workloads.split(",")
    schedulers = a.schedulers.split(",")
    console = Console()

    folder = tempfile.mkdtemp(prefix="tidegate-bench-")
    try:
        t0 = time.perf_counter()
        inputs = make_inputs(folder, a.steps)
        in_bytes = 2 * a.steps * CHUNK_BYTES // 4
        console.print(
            f"inputs: 2 x {in_bytes / 2e9:.1f} GB zarr, {CHUNK_BYTES / 1e6:.0f} MB chunks "
            f"(written in {time.perf_counter() - t0:.0f} s); {a.threads} threads, {a.reps} reps"
        )
        runs = []
        for rep in range(a.reps):
            for w in workloads:
                for s in schedulers:
                    m = run_isolated(w, s, inputs, a.threads, a.memory_limit)
                    runs.append(m)
                    console.print(
                        f"  rep {rep} {w:12s} {s:9s} {m.wall_time:6.2f} s "
                        f"{m.peak_rss / 1e6:7.0f} MB",
                        highlight=False,
                    )
    finally:
        shutil.rmtree(folder, ignore_errors=True)

    base = schedulers[0]
    table = Table(title=f"median of {a.reps}; ratios against {base}")
    for col in ("workload", "scheduler", "tasks", "wall s", "peak MB", "wall ratio", "peak ratio"):
        table.add_column(col, justify="left" if col in ("workload", "scheduler") else "right")
    summary = []
    for w in workloads:
        med = {}
        for s in schedulers:
            ms = [m for m in runs if m.workload == w and m.scheduler == s]
            med[s] = (
                statistics.median(m.wall_time for m in ms),
                statistics.median(m.peak_rss for m in ms),
                ms[0].tasks,
            )
        for s in schedulers:
            wall, peak, tasks = med[s]
            wr, pr = wall / med[base][0], peak / med[base][1]
            summary.append(
                {"workload": w, "scheduler": s, "tasks": tasks, "wall_time": wall,
                 "peak_rss": peak, "wall_ratio": wr, "peak_ratio": pr}
            )  # fmt: skip
            table.add_row(w, s, str(tasks), f"{wall:.2f}", f"{peak / 1e6:.0f}",
                          f"{wr:.2f}", f"{pr:.2f}")  # fmt: skip
    console.print(table)
    for s in schedulers[1:]:
        rows = [r for r in summary if r["scheduler"] == s]
        console.print(
            f"{s}: median wall ratio {statistics.median(r['wall_ratio'] for r in rows):.2f}, "
            f"median peak ratio {statistics.median(r['peak_ratio'] for r in rows):.2f}"
        )
    os.makedirs(os.path.dirname(a.json), exist_ok=True)
    with open(a.json, "w") as f:
        json.dump(
            {"args": vars(a), "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
             "summary": summary, "runs": [vars(m) | {"samples": None} for m in runs]},
            f, indent=1,
        )  # fmt: skip
    console.print(f"wrote {a.json}")


if __name__ == "__main__":
    main()
