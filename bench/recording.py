"""Cost of ``tidegate.record()`` on a cluster: wall time per task with the recorder plugin
on and off, side by side in one run (interleaved reps, medians, ratio).

The graph: --tasks trivial tasks (a wide layer of tiny loads and a tree of sums), on a
LocalCluster of 2 workers x 1 thread in this process, dask's default scheduling.

    python bench/recording.py [--tasks 20000] [--reps 5]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import statistics
import sys
import tempfile
import time

# bench/distributed.py is named like the library: keep this folder off the import path.
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != HERE]

import dask  # noqa: E402
import dask.bag as db  # noqa: E402
import distributed  # noqa: E402
from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

import tidegate  # noqa: E402


def graph(ntasks: int):
    # from_sequence + map + sum: ~ntasks tasks, each trivial
    return db.from_sequence(range(ntasks // 2), npartitions=ntasks // 2).map(lambda x: x + 1).sum()


def in_hooks(client, x, folder) -> float:
    """Seconds spent inside the recorder's transition and sampling hooks for one run: the
    scheduler's own cost of recording, free of the run-to-run noise of wall times."""
    from tidegate import recording

    cls = recording._recorder_class()
    spent = [0.0]
    originals = {name: getattr(cls, name) for name in ("transition", "sample")}

    def timed(fn):
        def wrapper(*a, **k):
            t0 = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                spent[0] += time.perf_counter() - t0
        return wrapper

    for name, fn in originals.items():
        setattr(cls, name, timed(fn))
    try:
        with tidegate.record(os.path.join(folder, "h.html"), client=client, save_traces=False):
            dask.compute(x)
    finally:
        for name, fn in originals.items():
            setattr(cls, name, fn)
    return spent[0]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tasks", type=int, default=20_000)
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    logging.getLogger("distributed").setLevel(logging.ERROR)
    times: dict[str, list[float]] = {"off": [], "on": []}
    ntasks = 0
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as client, tempfile.TemporaryDirectory() as d:
        dask.compute(graph(args.tasks))  # warm up
        for _ in range(args.reps):
            for mode in ("off", "on"):
                x = graph(args.tasks)
                t0 = time.perf_counter()
                if mode == "on":
                    with tidegate.record(os.path.join(d, "r.html"), client=client,
                                         save_traces=False) as rec:
                        dask.compute(x)
                    ntasks = len(rec.traces[0].tasks)
                else:
                    dask.compute(x)
                times[mode].append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        tidegate.report(rec.traces, os.path.join(d, "r.html"))
        report_s = time.perf_counter() - t0
        hooks_us = in_hooks(client, graph(args.tasks), d) / ntasks * 1e6
    off, on = (statistics.median(times[m]) for m in ("off", "on"))
    table = Table(title=f"record() on a LocalCluster (2 x 1 thread): {ntasks:,} tasks, "
                        f"median of {args.reps}")
    for col in ("recording", "wall s", "µs / task"):
        table.add_column(col, justify="right")
    table.add_row("off", f"{off:.2f}", f"{off / ntasks * 1e6:.0f}")
    table.add_row("on (incl. report)", f"{on:.2f}", f"{on / ntasks * 1e6:.0f}")
    Console().print(table)
    Console().print(f"overhead: {(on - off) / ntasks * 1e6:.0f} µs per task ({on / off:.2f}x), "
                    f"of which writing the report {report_s:.2f} s; inside the recorder's "
                    f"scheduler hooks: {hooks_us:.1f} µs per task")
    result = {"tasks": ntasks, "reps": args.reps, "seconds": times, "median_off": off,
              "median_on": on, "overhead_us_per_task": (on - off) / ntasks * 1e6,
              "report_seconds": report_s, "in_hooks_us_per_task": hooks_us}
    with open(os.path.join(HERE, "results", "recording.json"), "w") as f:
        json.dump(result, f, indent=2)


if __name__ == "__main__":
    main()
