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

Two ways to run each (queue, tidegate) pair, both in this one process:
- lockstep (default): the two simulations run together, each in its own thread, taking
  turns by progress (whichever has finished the smaller share of its tasks runs, for
  ``--slice`` of them at a time; only one runs at any moment), each piece of scheduler
  work timed in its own thread's CPU time. Both policies then see the same machine at
  the same moments: a neighbour's burst, a slower clock or a colder cache falls on both
  within a fraction of a second, where whole runs one after the other (the old way) let a
  pair's ratio swing +-10% on this shared machine. The garbage collector is off during a
  pair (collected between pairs): a collection charges one policy for the other's
  objects; ``--gc`` keeps it on. Decisions are the same as run alone (makespans, peaks
  and bytes are checked against a sequential run of each policy).
- ``--sequential``: queue then tidegate, one after the other, per repeat.

Per pair the ratio tidegate/queue of scheduler CPU per task; reported: the median and
min-max of the pairs' ratios (``--repeat`` pairs), and each policy's median µs/task.
Absolute microseconds depend on the machine's load; the per-pair ratios are the result.
"""

from __future__ import annotations

import argparse
import functools
import gc
import json
import os
import statistics
import sys
import threading
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


class _Lockstep:
    """Two simulations in two threads taking turns by progress; each piece of scheduler
    work is timed in its own thread's CPU time (:func:`run_pair`)."""

    def __init__(self, names, tasks: int, slice_: float) -> None:
        self.cpu = dict.fromkeys(names, 0.0)
        self.progress = dict.fromkeys(names, 0)
        self.done = dict.fromkeys(names, False)
        self.turn = names[0]
        self.other = {names[0]: names[1], names[1]: names[0]}
        self.tasks = tasks
        self.step = max(1, int(slice_ * tasks))  # tasks a turn may run ahead
        self.cond = threading.Condition()
        self.handoffs = 0
        self._original = sim_cluster.SimCluster.scheduler_work
        self._who = threading.local()

    def __enter__(self):
        clock, original = self, self._original

        def timed(cluster, fn, *args, **kwargs):
            me = clock._who.name

            def run(*a):
                t0 = time.thread_time()
                try:
                    return fn(*a)
                finally:
                    clock.cpu[me] += time.thread_time() - t0
                    clock._after(me, len(cluster.trace.tasks))

            original(cluster, run, *args, **kwargs)

        sim_cluster.SimCluster.scheduler_work = timed
        return self

    def __exit__(self, *exc):
        sim_cluster.SimCluster.scheduler_work = self._original

    def _after(self, me: str, finished: int) -> None:
        """Hand the turn over once ``me`` is ``step`` tasks ahead of the other."""
        self.progress[me] = finished
        other = self.other[me]
        if self.done[other] or finished < self.progress[other] + self.step:
            return
        with self.cond:
            self.turn = other
            self.handoffs += 1
            self.cond.notify_all()
            self.cond.wait_for(lambda: self.turn == me)

    def run(self, name: str, fn):
        """Thread body: wait for the first turn, run, then hand the turn over for good."""
        self._who.name = name
        with self.cond:
            self.cond.wait_for(lambda: self.turn == name)
        try:
            return fn()
        finally:
            with self.cond:
                self.done[name] = True
                self.turn = self.other[name]
                self.cond.notify_all()


def _simulate(model, workers: int, policy: str):
    return simulate(model, workers=workers, threads_per_worker=4, policy=policy,
                    bandwidth="1GB/s", record_memory=False, processes=1)


def _decisions(r) -> dict:
    return {"makespan": r.makespan, "peak_per_worker": max(r.peak_memory_per_worker),
            "bytes_transferred": r.bytes_transferred, "messages": r.messages}


def run_pair(model, workers: int, tasks: int, slice_: float = 0.005,
             keep_gc: bool = False) -> dict:
    """Queue and tidegate in lockstep (see the module's docstring): ``{policy: run}``."""
    names = ("queue", "tidegate")
    results: dict = {}
    errors: list = []
    gc.collect()
    was = gc.isenabled()
    if not keep_gc:
        gc.disable()
    try:
        with _Lockstep(names, tasks, slice_) as clock:
            def body(p):
                try:
                    results[p] = clock.run(p, lambda: _simulate(model, workers, p))
                except BaseException as exc:  # re-raised below, in the main thread
                    errors.append(exc)

            threads = [threading.Thread(target=body, args=(p,)) for p in names]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
    finally:
        if was:
            gc.enable()
        gc.collect()
    if errors:
        raise errors[0]
    out = {}
    for p in names:
        r = results[p]
        n = len(r.trace.tasks)
        out[p] = {"tasks": n, "sched_cpu_s": clock.cpu[p],
                  "sched_us_per_task": 1e6 * clock.cpu[p] / n, **_decisions(r)}
    out["handoffs"] = clock.handoffs
    return out


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
        r = _simulate(model, workers, policy)
        total = time.process_time() - c0
    n = len(r.trace.tasks)
    return {"tasks": n, "sched_cpu_s": sched.cpu, "total_cpu_s": total,
            "sched_us_per_task": 1e6 * sched.cpu / n, "total_us_per_task": 1e6 * total / n,
            "thief_us_per_task": 1e6 * thief.cpu / n, "thief_calls": thief.calls,
            **_decisions(r)}


def _sequential(model, n: int, name: str, steps: int, args, table, entry) -> None:
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
    entry.update(median=med, runs=reps)
    table.add_row(str(n), name, str(int(t["tasks"])),
                  f"{q['sched_us_per_task']:.0f}", f"{t['sched_us_per_task']:.0f}",
                  f"{t['sched_us_per_task'] / q['sched_us_per_task']:.2f}",
                  f"{q['thief_us_per_task']:.0f}", f"{t['thief_us_per_task']:.0f}",
                  f"{bare['tidegate'] / bare['queue']:.2f}",
                  f"{q['total_us_per_task']:.0f}", f"{t['total_us_per_task']:.0f}",
                  f"{t['total_us_per_task'] - q['total_us_per_task']:.0f}",
                  f"{t['makespan'] / q['makespan']:.2f}")


def _lockstep(model, n: int, name: str, steps: int, args, table, entry) -> None:
    tasks = len(model.dsk)
    pairs = []
    for i in range(args.repeat):
        pair = run_pair(model, n, tasks, args.slice, args.gc)
        pair["ratio"] = (pair["tidegate"]["sched_us_per_task"]
                         / pair["queue"]["sched_us_per_task"])
        pairs.append(pair)
        print(n, name, steps, f"pair {i}", {p: round(pair[p]["sched_us_per_task"], 1)
                                             for p in ("queue", "tidegate")},
              f"ratio {pair['ratio']:.3f}", f"handoffs {pair['handoffs']}", flush=True)
    ratios = sorted(p["ratio"] for p in pairs)
    us = {p: statistics.median(x[p]["sched_us_per_task"] for x in pairs)
          for p in ("queue", "tidegate")}
    entry.update(pairs=pairs, ratios=ratios, median_ratio=statistics.median(ratios),
                 min_ratio=ratios[0], max_ratio=ratios[-1], median_us_per_task=us)
    if len(ratios) >= 4:
        q1, _, q3 = statistics.quantiles(ratios, n=4)
        entry["quartiles"] = [q1, q3]
    if args.check:  # the lockstep must not change what either policy decides
        alone = {p: _decisions(_simulate(model, n, p)) for p in ("queue", "tidegate")}
        same = all(alone[p] == {k: x[p][k] for k in alone[p]} for x in pairs for p in alone)
        entry["decisions_as_alone"] = same
        if not same:
            raise SystemExit(f"{name}: lockstep changed decisions: {alone} vs {pairs}")
    q, t = pairs[0]["queue"], pairs[0]["tidegate"]
    table.add_row(str(n), name, str(t["tasks"]), f"{us['queue']:.0f}", f"{us['tidegate']:.0f}",
                  f"{entry['median_ratio']:.3f}", f"{ratios[0]:.3f}-{ratios[-1]:.3f}",
                  " - ".join(f"{x:.3f}" for x in entry.get("quartiles", ())),
                  f"{t['makespan'] / q['makespan']:.2f}",
                  {True: "yes", False: "NO"}.get(entry.get("decisions_as_alone"), "-"))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", default="100,1000")
    ap.add_argument("--only", action="append", choices=sorted(STEPS))
    ap.add_argument("--repeat", type=int, default=2, help="pairs per workload")
    ap.add_argument("--scale", type=float, default=1.0, help="multiply the steps")
    ap.add_argument("--out", default=str(OUT))
    ap.add_argument("--sequential", action="store_true",
                    help="whole runs one after the other (with total and thief CPU)")
    ap.add_argument("--slice", type=float, default=0.005,
                    help="lockstep: share of the tasks a policy runs ahead per turn")
    ap.add_argument("--gc", action="store_true", help="lockstep: keep the collector on")
    ap.add_argument("--check", action="store_true",
                    help="lockstep: also run each policy alone; decisions must match")
    ap.add_argument("--dask-thief", action="store_true",
                    help="tidegate keeps dask's own thief search (as queue runs do)")
    args = ap.parse_args(argv)
    mode = "sequential" if args.sequential else "lockstep"
    out = {"command": "python bench/plugin_cpu.py " + " ".join(argv or sys.argv[1:]),
           "mode": mode, "repeat": args.repeat, "dask_thief": args.dask_thief,
           "slice": args.slice, "gc": args.gc, "load": os.getloadavg(), "runs": []}
    if args.sequential:
        table = Table(title="twin: scheduler CPU per task, tidegate vs dask queuing "
                            f"(median of {args.repeat}; 4 threads per worker, 1 GB/s)")
        cols = ("workers", "workload", "tasks", "queue sched µs/task",
                "tidegate sched µs/task", "sched ratio", "queue thief µs/task",
                "tidegate thief µs/task", "ratio without thieves", "queue total µs/task",
                "tidegate total µs/task", "plugin µs/task (total diff)", "makespan ratio")
    else:
        table = Table(title="twin: scheduler CPU per task, tidegate / dask queuing, "
                            f"{args.repeat} lockstep pairs (4 threads per worker, 1 GB/s)")
        cols = ("workers", "workload", "tasks", "queue µs/task (median)",
                "tidegate µs/task (median)", "ratio: median of pairs", "min-max",
                "quartiles", "makespan ratio", "decisions as alone")
    for col in cols:
        table.add_column(col, justify="left" if col == "workload" else "right")
    run = _sequential if args.sequential else _lockstep
    for n in map(int, args.workers.split(",")):
        for name in args.only or ["stack-sum", "vorticity", "anomaly"]:
            steps = int(STEPS[name] * args.scale * (2.5 if n >= 1000 else 1))
            w = build(name, steps, 190e6, store=False)
            model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
            entry = {"workers": n, "workload": name, "steps": steps}
            out["runs"].append(entry)
            run(model, n, name, steps, args, table, entry)
            out["load_after"] = os.getloadavg()
            Path(args.out).write_text(json.dumps(out, indent=1))
    Console(width=200).print(table)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
