"""The scheduler's own CPU per task with tidegate's plugin against dask's queuing, in the
twin (dask's real SchedulerState and WorkerStates on a virtual clock) at 100 and 1,000
workers: issue 9's target is at most 1.2x queuing's.

Two measures, side by side in one run, queue and tidegate interleaved per repeat:
- scheduler CPU: process time spent in the twin's scheduler work (every message handler,
  every stimulus, the timers: dask's code plus, under tidegate, the plugin), timed around
  each piece of scheduler work. This is what a real scheduler would spend.
- total CPU: the whole simulation (workers too). The difference tidegate - queue is the
  plugin's cost plus whatever the workers did differently under another schedule.

    python bench/plugin_cpu.py [--workers 100,1000] [--repeat 2] [--only stack-sum]
                               [--dask-thief]

Stealing: tidegate runs replace dask's thief search (``_get_thief``) with an exact, cheaper
one (distributed/server.py); queue runs keep dask's. The "thief µs/task" columns show the
scheduler CPU spent choosing thieves under each; ``--dask-thief`` gives tidegate dask's own
search too, to see how much of the ratio the replacement accounts for.

Times are medians over ``--repeat`` runs; the machine is shared, so ratios matter, not
absolute microseconds.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import statistics
import sys
import time
from pathlib import Path

_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _here]

from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

from distributed.stealing import WorkStealing  # noqa: E402
from tidegate.distributed import server  # noqa: E402
from tidegate.sim import cluster as sim_cluster  # noqa: E402
from tidegate.sim import simulate  # noqa: E402
from tidegate.sim.model import build_model  # noqa: E402
from tidegate.sim.workloads import build  # noqa: E402

OUT = Path(__file__).parent / "results" / "plugin_cpu.json"
# Steps per workload at 100 workers (a run takes 5-15 s); x2.5 at 1,000 (30-60 s).
STEPS = {"stack-sum": 2000, "vorticity": 2000, "slice-add": 2000, "anomaly": 1000,
         "running-total": 1000, "rechunk-add": 1000, "weighted": 1000}


class _SchedulerClock:
    """Sums the process time of every piece of scheduler work in the twin."""

    def __init__(self) -> None:
        self.cpu = 0.0
        self._original = sim_cluster.SimCluster.scheduler_work

    def __enter__(self):
        clock, original = self, self._original

        def timed(cluster, fn, *args, **kwargs):  # kwargs: messages= (a batch's size)
            def run(*a):
                t0 = time.process_time()
                try:
                    return fn(*a)
                finally:
                    clock.cpu += time.process_time() - t0

            original(cluster, run, *args, **kwargs)

        sim_cluster.SimCluster.scheduler_work = timed
        return self

    def __exit__(self, *exc):
        sim_cluster.SimCluster.scheduler_work = self._original


class _ThiefClock:
    """Sums the process time spent choosing thieves: dask's ``WorkStealing._get_thief``
    or the plugin's replacement; ``dask_thief``: the plugin keeps dask's."""

    def __init__(self, dask_thief: bool = False) -> None:
        self.cpu = 0.0
        self.calls = 0
        self.dask_thief = dask_thief

    def _timed(self, fn):
        clock = self

        @functools.wraps(fn)  # keeps the signature the plugin checks before replacing it
        def timed(*args, **kwargs):
            t0 = time.process_time()
            try:
                return fn(*args, **kwargs)
            finally:
                clock.cpu += time.process_time() - t0
                clock.calls += 1

        return timed

    def __enter__(self):
        self._dask, self._fast = WorkStealing._get_thief, server._fast_thief
        clock = self
        WorkStealing._get_thief = self._timed(self._dask)

        def fast(plugin, steal, original):  # original: the timed dask search, bound
            return original if clock.dask_thief else clock._timed(
                clock._fast(plugin, steal, original))

        server._fast_thief = fast
        return self

    def __exit__(self, *exc):
        WorkStealing._get_thief, server._fast_thief = self._dask, self._fast


def run_once(model, workers: int, policy: str, dask_thief: bool = False) -> dict:
    with _SchedulerClock() as sched, _ThiefClock(dask_thief) as thief:
        c0 = time.process_time()
        r = simulate(model, workers=workers, threads_per_worker=4, policy=policy,
                     bandwidth="1GB/s", record_memory=False)
        total = time.process_time() - c0
    n = len(r.trace.tasks)
    return {"tasks": n, "sched_cpu_s": sched.cpu, "total_cpu_s": total,
            "sched_us_per_task": 1e6 * sched.cpu / n, "total_us_per_task": 1e6 * total / n,
            "thief_us_per_task": 1e6 * thief.cpu / n, "thief_calls": thief.calls,
            "makespan": r.makespan, "peak_per_worker": max(r.peak_memory_per_worker),
            "bytes_transferred": r.bytes_transferred, "messages": r.messages}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", default="100,1000")
    ap.add_argument("--only", action="append", choices=sorted(STEPS))
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--scale", type=float, default=1.0, help="multiply the steps")
    ap.add_argument("--out", default=str(OUT))
    ap.add_argument("--dask-thief", action="store_true",
                    help="tidegate keeps dask's own thief search (as queue runs do)")
    args = ap.parse_args(argv)
    out = {"command": "python bench/plugin_cpu.py " + " ".join(argv or sys.argv[1:]),
           "repeat": args.repeat, "dask_thief": args.dask_thief, "runs": []}
    table = Table(title="twin: scheduler CPU per task, tidegate vs dask queuing "
                        f"(median of {args.repeat}; 4 threads per worker, 1 GB/s)")
    for col in ("workers", "workload", "tasks", "queue sched µs/task", "tidegate sched µs/task",
                "sched ratio", "queue thief µs/task", "tidegate thief µs/task",
                "ratio without thieves", "queue total µs/task", "tidegate total µs/task",
                "plugin µs/task (total diff)", "makespan ratio"):
        table.add_column(col, justify="left" if col == "workload" else "right")
    for n in map(int, args.workers.split(",")):
        for name in args.only or ["stack-sum", "vorticity", "anomaly"]:
            steps = int(STEPS[name] * args.scale * (2.5 if n >= 1000 else 1))
            w = build(name, steps, 190e6)
            model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
            reps = {"queue": [], "tidegate": []}
            for _ in range(args.repeat):
                for p in reps:
                    reps[p].append(run_once(model, n, p, args.dask_thief))
                    print(n, name, steps, p, {k: round(v, 1) for k, v in reps[p][-1].items()},
                          flush=True)
            med = {p: {k: statistics.median(r[k] for r in rs) for k in rs[0]}
                   for p, rs in reps.items()}
            q, t = med["queue"], med["tidegate"]
            bare = {p: r["sched_us_per_task"] - r["thief_us_per_task"] for p, r in med.items()}
            out["runs"].append({"workers": n, "workload": name, "steps": steps,
                                "median": med, "runs": reps})
            table.add_row(str(n), name, str(int(t["tasks"])),
                          f"{q['sched_us_per_task']:.0f}", f"{t['sched_us_per_task']:.0f}",
                          f"{t['sched_us_per_task'] / q['sched_us_per_task']:.2f}",
                          f"{q['thief_us_per_task']:.0f}", f"{t['thief_us_per_task']:.0f}",
                          f"{bare['tidegate'] / bare['queue']:.2f}",
                          f"{q['total_us_per_task']:.0f}", f"{t['total_us_per_task']:.0f}",
                          f"{t['total_us_per_task'] - q['total_us_per_task']:.0f}",
                          f"{t['makespan'] / q['makespan']:.2f}")
            Path(args.out).write_text(json.dumps(out, indent=1))
    Console(width=200).print(table)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
