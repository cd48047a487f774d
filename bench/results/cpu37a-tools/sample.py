"""(cpu37a, session 37) Where the twin's scheduler CPU goes, by time: a sampling profiler of
the scheduler's work alone (SimCluster.scheduler_work, as plugin_cpu.py times it), queue and
tidegate alternated in one process, several repeats.

    PYTHONPATH=<src> python bench/results/cpu37a-tools/sample.py WORKLOAD [--workers 100]
        [--scale 1] [--repeat 3] [--interval 0.0005] [--out OUT.pkl]

A wall-clock timer (ITIMER_REAL, ``--interval``) interrupts the run; the handler weighs its
sample by the thread CPU time spent since the last one (so time the process was not running
counts nothing) and charges it to the Python frame running then (its own time: the C work it
called, sorted(), heapq, set building, is charged to the Python function that called it) and,
inclusively, to every function on the stack down to the scheduler work's entry. Samples outside
the scheduler's work are dropped. CPU timers (ITIMER_PROF) tick at 4 ms here: too coarse.
Output: per function (own and inclusive) microseconds of scheduler CPU per task, share of the
scheduler's total, per policy, medians over the repeats; a pickle for joins (bytecodes).
"""
from __future__ import annotations

import argparse
import collections
import gc
import os
import pickle
import signal
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import plugin_ops  # noqa: E402
from tidegate.sim import cluster as sim_cluster  # noqa: E402
from tidegate.sim import simulate  # noqa: E402
from tidegate.sim.model import build_model  # noqa: E402
from tidegate.sim.workloads import build  # noqa: E402


def nm(c) -> str:
    return f"{os.path.basename(c.co_filename)}:{c.co_firstlineno} {c.co_qualname}"


def group(c) -> str:
    f = c.co_filename
    if plugin_ops.in_plugin(c):
        return "plugin"
    if "tidegate" in f:
        return "tidegate-other"
    if "distributed" in f:
        return "dask"
    if "sortedcontainers" in f:
        return "sortedcontainers"
    return "other"


def run(model, workers: int, policy: str, interval: float, under: str | None = None):
    own = collections.Counter()
    sub = collections.Counter()  # (--under) inclusive, within a call of that function
    subown = collections.Counter()
    incl = collections.Counter()
    grp = collections.Counter()
    state = {"depth": 0, "entry": None, "last": time.thread_time(), "total": 0.0}
    original = sim_cluster.SimCluster.scheduler_work

    def handler(sig, frame):
        if frame.f_code is handler.__code__:
            return  # (a signal within the handler: its time goes to the next sample)
        now = time.thread_time()
        dt = now - state["last"]
        if not state["depth"]:
            state["last"] = time.thread_time()
            return
        state["total"] += dt
        own[frame.f_code] += dt
        grp[group(frame.f_code)] += dt
        seen = []
        f = frame
        while f is not None:
            c = f.f_code
            if c not in seen:
                seen.append(c)
                incl[c] += dt
            f = f.f_back
        if under is not None:
            for i, c in enumerate(seen):
                if under in nm(c):
                    subown[frame.f_code] += dt
                    for c2 in seen[:i + 1]:
                        sub[c2] += dt
                    break
        state["last"] = time.thread_time()  # (the handler's own time counts nowhere)

    def timed(cluster, fn, *args, **kwargs):
        def work(*a):
            state["depth"] += 1
            try:
                return fn(*a)
            finally:
                state["depth"] -= 1
        original(cluster, work, *args, **kwargs)

    sim_cluster.SimCluster.scheduler_work = timed
    gc.collect()
    gc.disable()
    signal.signal(signal.SIGALRM, handler)
    signal.setitimer(signal.ITIMER_REAL, interval, interval)
    try:
        r = simulate(model, workers=workers, threads_per_worker=4, policy=policy,
                     bandwidth="1GB/s", record_memory=False, processes=1)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0, 0)
        sim_cluster.SimCluster.scheduler_work = original
        gc.enable()
    n = len(r.trace.tasks)
    return {"tasks": n, "total": state["total"] * 1e6 / n,
            "own": {nm(c): v * 1e6 / n for c, v in own.items()},
            "incl": {nm(c): v * 1e6 / n for c, v in incl.items()},
            "group": {k: v * 1e6 / n for k, v in grp.items()},
            "under": {nm(c): v * 1e6 / n for c, v in sub.items()},
            "under_own": {nm(c): v * 1e6 / n for c, v in subown.items()}}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("workload")
    ap.add_argument("--workers", type=int, default=100)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--interval", type=float, default=0.0005)
    ap.add_argument("--out")
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--under", help="also: time within calls of the function whose name "
                    "(file:line qualname) contains this, by function")
    ap.add_argument("--policies", default="queue,tidegate")
    a = ap.parse_args()
    w = build(a.workload, int(plugin_ops.STEPS[a.workload] * a.scale), 190e6, store=False)
    model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
    runs = {p: [] for p in a.policies.split(",")}
    for i in range(a.repeat):
        for p in runs:
            r = run(model, a.workers, p, a.interval, a.under)
            runs[p].append(r)
            print(f"# {p} repeat {i}: {r['total']:.1f} us/task sampled, tasks {r['tasks']}",
                  flush=True)
    if a.out:
        with open(a.out, "wb") as f:
            pickle.dump(runs, f)

    def med(p, kind, k):
        return statistics.median(r[kind].get(k, 0.0) for r in runs[p])

    for p in runs:
        tot = statistics.median(r["total"] for r in runs[p])
        print(f"\n== {p}: {tot:.1f} us/task (median of {a.repeat}; "
              f"range {min(r['total'] for r in runs[p]):.1f}-"
              f"{max(r['total'] for r in runs[p]):.1f})")
        for g in sorted({g for r in runs[p] for g in r["group"]}):
            v = med(p, "group", g)
            print(f"   {g:18s} {v:8.1f} us/task {100 * v / tot:5.1f}%")
        for kind in ("own", "incl") + (("under", "under_own") if a.under else ()):
            keys = {k for r in runs[p] for k in r[kind]}
            rows = sorted(keys, key=lambda k: -med(p, kind, k))[:a.top]
            print(f" -- {kind}")
            for k in rows:
                v = med(p, kind, k)
                print(f"   {v:8.2f} us/task {100 * v / tot:5.1f}%  {k}")


if __name__ == "__main__":
    main()
