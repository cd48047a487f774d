"""Scheduler overhead: µs per task on a graph of trivial tasks, tidegate vs dask's threaded
and synchronous schedulers, side by side.

The graph (wide leaves plus a binary tree reduction, 100,000 tasks by default) is built
once as dask Task objects; each get is timed from the call to the result, interleaved
over several reps (medians reported: the machine is shared). tidegate's time is broken
down into ingestion (dask graph -> TaskGraph, of which the priority order), core decisions,
and the rest (threads and hand-offs); dask's into dask.order and the rest. Two more pairs
measure what optional features cost: a trace recorded (``tidegate.trace.collecting()``)
and a no-op pretask/posttask callback (the live ``state`` contract), the latter beside
dask threaded with the same callback.

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
from dask.callbacks import Callback
from dask.local import get_sync
from dask.order import order as dask_order
from dask.threaded import get as threaded_get
from rich.console import Console
from rich.table import Table

import tidegate
from tidegate.bridge import to_taskgraph
from tidegate.graph import dfs_order
from tidegate.trace import collecting

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
        "sync total", "threads total", "threads: dask.order", "tidegate total",
        "tidegate: ingestion", "tidegate: of which dfs order", "tidegate: core events",
        "tidegate: threads+hand-off", "tidegate, trace recorded", "threads, no-op callback",
        "tidegate, no-op callback",
    )}  # fmt: skip
    noop = Callback(pretask=lambda key, dsk, state: None,
                    posttask=lambda key, result, dsk, state, id: None)  # fmt: skip

    def timed(row, fn):
        t0 = time.perf_counter()
        assert fn() == expected
        rows[row].append(time.perf_counter() - t0)

    for _ in range(a.reps):
        timed("sync total", lambda: get_sync(dsk, out))
        timed("threads total", lambda: threaded_get(dsk, out, num_workers=a.threads))
        t0 = time.perf_counter()
        s = tidegate.RunStats()
        assert tidegate.get(dsk, out, num_workers=a.threads, stats=s) == expected
        total = time.perf_counter() - t0
        rows["tidegate total"].append(total)
        rows["tidegate: ingestion"].append(s.ingest_time)
        rows["tidegate: core events"].append(s.core_time)
        rows["tidegate: threads+hand-off"].append(total - s.ingest_time - s.core_time)
        with collecting() as traces:
            timed("tidegate, trace recorded", lambda: tidegate.get(dsk, out, num_workers=a.threads))
        assert len(traces[0].tasks) == n
        with noop:
            timed("threads, no-op callback", lambda: threaded_get(dsk, out, num_workers=a.threads))
            timed("tidegate, no-op callback", lambda: tidegate.get(dsk, out, num_workers=a.threads))
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
    ratios = {
        "tidegate / threaded": ratio,
        "tidegate / sync": med["tidegate total"] / med["sync total"],
        "trace recorded / not": med["tidegate, trace recorded"] / med["tidegate total"],
        "tidegate / threaded, with callback": med["tidegate, no-op callback"]
        / med["threads, no-op callback"],
    }
    console = Console()
    console.print(table)
    for k, v in ratios.items():
        console.print(f"{k}: {v:.2f}")
    os.makedirs(os.path.dirname(a.json), exist_ok=True)
    with open(a.json, "w") as f:
        json.dump({"tasks": n, "args": vars(a), "us_per_task": med, "ratio": ratio, "ratios": ratios,
                   "raw_seconds": rows}, f, indent=1)  # fmt: skip
    console.print(f"wrote {a.json}")


if __name__ == "__main__":
    main()
