"""Scheduler overhead: µs per task on a graph of trivial tasks, tidegate vs dask threaded.

The graph (wide leaves plus a binary tree reduction, 100,000 tasks by default) is built
once as dask Task objects; each get is timed from the call to the result, interleaved
over several reps. tidegate's time is broken down into ingestion (dask graph -> TaskGraph,
of which the priority order), core decisions, and the rest (threads and hand-offs);
dask's into dask.order and the rest.

    python bench/overhead.py [--tasks 100000] [--reps 5]
"""

from __future__ import annotations

import argparse
import json
import operator
import os
import statistics
import time

from dask._task_spec import Task, TaskRef, convert_legacy_graph
from dask.order import order as dask_order
from dask.threaded import get as threaded_get
from rich.console import Console
from rich.table import Table

import tidegate
from tidegate.bridge import to_taskgraph
from tidegate.graph import dfs_order

HERE = os.path.dirname(os.path.abspath(__file__))


def build(ntasks: int):
    dsk = {}
    layer = []
    for i in range(ntasks // 2):
        k = ("leaf", i)
        dsk[k] = Task(k, operator.add, i, 1)
        layer.append(k)
    level = 0
    while len(layer) > 1:
        new = []
        for j in range(0, len(layer), 2):
            k = (f"reduce-{level}", j // 2)
            pair = layer[j : j + 2]
            dsk[k] = Task(k, operator.add, *map(TaskRef, pair)) if len(pair) == 2 else Task(
                k, operator.pos, TaskRef(pair[0])
            )
            new.append(k)
        layer = new
        level += 1
    return dsk, layer[0]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--tasks", type=int, default=100_000)
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--json", default=os.path.join(HERE, "results", "overhead.json"))
    a = p.parse_args()
    dsk, out = build(a.tasks)
    n = len(dsk)
    expected = sum(i + 1 for i in range(a.tasks // 2))
    rows: dict[str, list[float]] = {k: [] for k in (
        "threads total", "threads: dask.order", "tidegate total", "tidegate: ingestion",
        "tidegate: of which dfs order", "tidegate: core events", "tidegate: threads+hand-off",
    )}  # fmt: skip
    for _ in range(a.reps):
        t0 = time.perf_counter()
        assert threaded_get(dsk, out, num_workers=a.threads) == expected
        rows["threads total"].append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        s = tidegate.RunStats()
        assert tidegate.get(dsk, out, num_workers=a.threads, stats=s) == expected
        total = time.perf_counter() - t0
        rows["tidegate total"].append(total)
        rows["tidegate: ingestion"].append(s.ingest_time)
        rows["tidegate: core events"].append(s.core_time)
        rows["tidegate: threads+hand-off"].append(total - s.ingest_time - s.core_time)
        conv = convert_legacy_graph(dsk)
        t0 = time.perf_counter()
        dask_order(conv)
        rows["threads: dask.order"].append(time.perf_counter() - t0)
        graph = to_taskgraph(conv, [out])
        t0 = time.perf_counter()
        dfs_order(graph)
        rows["tidegate: of which dfs order"].append(time.perf_counter() - t0)

    med = {k: statistics.median(v) / n * 1e6 for k, v in rows.items()}
    table = Table(title=f"{n} trivial tasks, {a.threads} threads, median of {a.reps}: µs per task")
    table.add_column("part")
    table.add_column("µs/task", justify="right")
    for k, v in med.items():
        table.add_row(k, f"{v:.1f}")
    ratio = med["tidegate total"] / med["threads total"]
    console = Console()
    console.print(table)
    console.print(f"tidegate / threaded: {ratio:.2f}")
    os.makedirs(os.path.dirname(a.json), exist_ok=True)
    with open(a.json, "w") as f:
        json.dump({"tasks": n, "args": vars(a), "us_per_task": med, "ratio": ratio,
                   "raw_seconds": rows}, f, indent=1)  # fmt: skip
    console.print(f"wrote {a.json}")


if __name__ == "__main__":
    main()
