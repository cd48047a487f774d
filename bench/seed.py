"""Seed workloads: tidegate.get against dask's threaded scheduler, side by side in one run.

Each (workload, scheduler) pair runs in a fresh process (honest peak RSS, sampled every
10 ms); repetitions are interleaved so that machine noise hits all alike. Runs: dask
threaded; tidegate with its default budget; tidegate with a budget of --budget-fraction
of threaded's peak on that workload (from the first rep; at least 4 chunks, the largest
footprint here). Reports medians and ratios against threaded, prints a table, writes JSON.

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
    p.add_argument("--budget-fraction", type=float, default=0.25, help="0: no budgeted runs")
    p.add_argument("--budget", type=float, default=None, help="a fixed budget (bytes) instead")
    p.add_argument("--json", default=os.path.join(HERE, "results", "seed.json"))
    a = p.parse_args()
    workloads = a.workloads.split(",")
    budgeted = a.budget_fraction or a.budget
    schedulers = ["threads", "tidegate"] + (["tidegate+budget"] if budgeted else [])
    budgets: dict[str, float] = {}
    console = Console(width=150)

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
                    budget = budgets.get(w) if s == "tidegate+budget" else None
                    m = run_isolated(w, s.split("+")[0], inputs, a.threads, budget)
                    m.scheduler = s
                    runs.append(m)
                    if s == "threads" and w not in budgets:
                        budgets[w] = a.budget or max(a.budget_fraction * m.peak_rss,
                                                     4 * CHUNK_BYTES)
                    console.print(
                        f"  rep {rep} {w:13s} {s:15s} {m.wall_time:6.2f} s "
                        f"{m.peak_rss / 1e6:7.0f} MB peak, {m.spilled / 1e6:6.0f} MB spilled",
                        highlight=False,
                    )
    finally:
        shutil.rmtree(folder, ignore_errors=True)

    base = schedulers[0]
    table = Table(title=f"median of {a.reps}; ratios against {base}")
    cols = ("workload", "scheduler", "budget MB", "wall s", "peak MB", "wall ratio", "peak ratio",
            "spilled/input")  # fmt: skip
    for col in cols:
        table.add_column(col, justify="left" if col in ("workload", "scheduler") else "right")
    summary = []
    for w in workloads:
        med = {}
        for s in schedulers:
            ms = [m for m in runs if m.workload == w and m.scheduler == s]
            med[s] = (
                statistics.median(m.wall_time for m in ms),
                statistics.median(m.peak_rss for m in ms),
                statistics.median(m.spilled for m in ms) / in_bytes,
                ms[0],
            )
        for s in schedulers:
            wall, peak, spilled, m = med[s]
            wr, pr = wall / med[base][0], peak / med[base][1]
            budget = m.memory_limit
            summary.append(
                {"workload": w, "scheduler": s, "tasks": m.tasks, "budget": budget,
                 "wall_time": wall, "peak_rss": peak, "wall_ratio": wr, "peak_ratio": pr,
                 "spilled_over_input": spilled}
            )  # fmt: skip
            table.add_row(w, s, f"{budget / 1e6:.0f}" if budget else "default" if s != base
                          else "-", f"{wall:.2f}", f"{peak / 1e6:.0f}", f"{wr:.2f}", f"{pr:.2f}",
                          f"{spilled:.2f}")  # fmt: skip
    console.print(table)
    for s in schedulers[1:]:
        rows = [r for r in summary if r["scheduler"] == s]
        console.print(
            f"{s}: median wall ratio {statistics.median(r['wall_ratio'] for r in rows):.2f} "
            f"(max {max(r['wall_ratio'] for r in rows):.2f}), median peak ratio "
            f"{statistics.median(r['peak_ratio'] for r in rows):.2f} "
            f"(max {max(r['peak_ratio'] for r in rows):.2f})"
        )
    os.makedirs(os.path.dirname(a.json), exist_ok=True)
    with open(a.json, "w") as f:
        json.dump(
            {"args": vars(a),
             "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
             "summary": summary, "runs": [vars(m) | {"samples": None} for m in runs]},
            f, indent=1,
        )  # fmt: skip
    console.print(f"wrote {a.json}")


if __name__ == "__main__":
    main()
