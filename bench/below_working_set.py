"""How fast can a pipeline run below its working set? (issue 10)

Below what two tasks need at once, a memory limit admits one task at a time: the floor of
its wall time is then dask threaded's on ONE thread, not on two. This runs, interleaved in
rounds of fresh processes, dask threaded on 2 and on 1 thread and tidegate (2 threads asked)
at limits below the working set, and prints each cell's median wall against both threaded
references, its peak against the limit and its CPU. Writes JSON.

    python bench/below_working_set.py                          # vorticity, 140/170/200 MB
    python bench/below_working_set.py --workload vorticity --limits 140MB,200MB --reps 3
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import tempfile

# Before anything imports distributed: dask's optional `import distributed` finds
# bench/distributed.py first, and that script takes bench/ off the import path.
from rss import measured  # noqa: I001 - bench/ is the script's folder

from dask.utils import parse_bytes
from rich.console import Console
from rich.table import Table

from tidegate.workloads import make_inputs

HERE = os.path.dirname(os.path.abspath(__file__))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--workload", default="vorticity")
    p.add_argument("--limits", default="140MB,170MB,200MB")
    p.add_argument("--steps", type=int, default=100)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--json", default=os.path.join(HERE, "results", "below_working_set.json"))
    a = p.parse_args()
    limits = [parse_bytes(x) for x in a.limits.split(",")]
    cells = [("threaded, 2 threads", "threads", 2, None),
             ("threaded, 1 thread", "threads", 1, None)]
    cells += [(f"tidegate {lim / 1e6:.0f} MB", "tidegate", 2, lim) for lim in limits]
    folder = tempfile.mkdtemp(prefix="tidegate-bench-")
    runs = []
    try:
        inputs = make_inputs(folder, a.steps)
        for rep in range(a.reps):
            order = cells if rep % 2 == 0 else cells[::-1]
            for name, sched, threads, limit in order:
                load = os.getloadavg()[0]
                m, cpu, at_once = measured(a.workload, sched, inputs, threads, limit)
                runs.append({"cell": name, "rep": rep, "wall": m.wall_time, "peak": m.peak_rss,
                             "limit": limit, "cpu": cpu, "at_once": at_once, "load": load})
                print(f"rep {rep} {name:22} {m.wall_time:6.2f} s  peak {m.peak_rss / 1e6:5.0f} MB"
                      f"  cpu {cpu:5.1f} s  load {load:.1f}", flush=True)  # fmt: skip
    finally:
        shutil.rmtree(folder, ignore_errors=True)

    def med(cell, key):
        return statistics.median(r[key] for r in runs if r["cell"] == cell)

    two, one = med(cells[0][0], "wall"), med(cells[1][0], "wall")
    table = Table(title=f"{a.workload}: medians of {a.reps} interleaved fresh-process runs")
    for col in ("cell", "wall s", "/ threaded 2", "/ threaded 1", "peak / limit", "CPU s",
                "tasks at once"):  # fmt: skip
        table.add_column(col)
    for name, _, _, limit in cells:
        peak = f"{med(name, 'peak') / limit:.2f}" if limit else "-"
        at_once = [r["at_once"] for r in runs if r["cell"] == name and r["at_once"]]
        w = med(name, "wall")
        table.add_row(name, f"{w:.2f}", f"{w / two:.2f}", f"{w / one:.2f}", peak,
                      f"{med(name, 'cpu'):.1f}",
                      f"{statistics.median(at_once):.2f}" if at_once else "-")  # fmt: skip
    Console(width=140).print(table)
    with open(a.json, "w") as f:
        json.dump({"workload": a.workload, "steps": a.steps, "runs": runs}, f, indent=1)
    print(f"wrote {a.json}")


if __name__ == "__main__":
    main()
