"""A deterministic companion to plugin_cpu.py: Python bytecodes and calls executed per task
on the twin's scheduler side (every message handler, stimulus and timer, as plugin_cpu.py
times them), in total and in the plugin's own code (tidegate.distributed, policy, books).
CPU seconds on a shared machine swing 10-20% between runs; these counts do not, so a change
to the plugin's per-task work can be judged exactly. They weigh every bytecode alike (a
dict look-up as much as a call), so they bound, not replace, the CPU ratio.

    PYTHONHASHSEED=0 python bench/plugin_ops.py [--workers 20] [--scale 0.2] [--only stack-sum]
                                                [--functions 15 [--lines 2]]
                                                [--against OTHER/src]
                                                [--out OUT.json]

``--functions N``: also the N plugin functions with most bytecodes per task (their own
bytecodes, not their callees'), with calls per task: where the plugin's work goes;
``--lines MIN``: and under each, its source lines with at least MIN bytecodes a task (the
cpu helpers' alllines.py, copied into bench/results three times before session 53).
``--against OTHER/src``: the same counts for another version of the code (run in its own
process, this script with PYTHONPATH=OTHER/src), side by side: ``change`` is this code's
plugin bytecodes per task over the other's. ``--out``: every line, as JSON.

Tracing slows the run ~50x: use small graphs, but with more roots than the workers take
at once (20 workers, scale 0.2), or the plugin's queue is never used.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import linecache
import os
import subprocess
import sys

_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _here]

from tidegate.sim import cluster as sim_cluster  # noqa: E402
from tidegate.sim import simulate  # noqa: E402
from tidegate.sim.model import build_model  # noqa: E402
from tidegate.sim.workloads import build  # noqa: E402

# Steps per workload at scale 1, as in plugin_cpu.py (every seed workload).
STEPS = {"stack-sum": 2000, "vorticity": 2000, "slice-add": 2000, "anomaly": 1000,
         "running-total": 1000, "rechunk-add": 1000, "weighted": 1000}
# (tidegate/policy: the package since session 51, policy.py before: both match; the books
# in books.py and, since session 52, its mixins books_admission.py and books_placement.py)
PLUGIN = (os.path.join("tidegate", "distributed"), os.path.join("tidegate", "policy"),
          os.path.join("tidegate", "books"))


@contextlib.contextmanager
def tracing(call):
    """Within: ``sys.settrace(call)`` around the twin's scheduler-side work alone (every
    message handler, stimulus and timer: SimCluster.scheduler_work), as :func:`count`
    counts it (bench/sessions' profilers too). Keep ``traced`` as it is: work nested in
    work is traced from inside, so its bytecodes here count (one changed, a count moves)."""
    original = sim_cluster.SimCluster.scheduler_work

    def traced(cluster, fn, *args, **kwargs):
        def run(*a):
            sys.settrace(call)
            try:
                return fn(*a)
            finally:
                sys.settrace(None)

        original(cluster, run, *args, **kwargs)

    sim_cluster.SimCluster.scheduler_work = traced
    try:
        yield
    finally:
        sim_cluster.SimCluster.scheduler_work = original


def in_plugin(code) -> bool:
    """Is this code object the plugin's (``PLUGIN``'s files)?"""
    return any(s in code.co_filename for s in PLUGIN)


def count(model, workers: int, policy: str, functions: int = 0, lines: float = 0) -> dict:
    n = {"ops": 0, "plugin_ops": 0, "calls": 0, "plugin_calls": 0}
    mine: dict = {}  # code object -> in the plugin's code?
    per: dict = {}  # plugin code object -> [own bytecodes, calls] (with --functions)
    per_line: dict = {}  # (plugin code object, line) -> bytecodes (with --lines)

    def local(frame, event, arg):
        if event == "opcode":
            n["ops"] += 1
            if mine[frame.f_code]:
                n["plugin_ops"] += 1
                if functions:
                    per[frame.f_code][0] += 1
                    if lines:
                        at = (frame.f_code, frame.f_lineno)
                        per_line[at] = per_line.get(at, 0) + 1
        return local

    def call(frame, event, arg):
        code = frame.f_code
        p = mine.get(code)
        if p is None:
            p = mine[code] = in_plugin(code)
        n["calls"] += 1
        n["plugin_calls"] += p
        if p and functions:
            c = per.get(code)
            if c is None:
                c = per[code] = [0, 0]
            c[1] += 1
        frame.f_trace_opcodes = True
        frame.f_trace_lines = False
        return local

    with tracing(call):
        r = simulate(model, workers=workers, threads_per_worker=4, policy=policy,
                     bandwidth="1GB/s", record_memory=False)
    tasks = len(r.trace.tasks)
    out = {"tasks": tasks, **{f"{k}_per_task": v / tasks for k, v in n.items()}}
    if functions:
        top = sorted(per.items(), key=lambda kv: -kv[1][0])[:functions]
        out["functions"] = {
            f"{os.path.basename(c.co_filename)}:{c.co_firstlineno} {c.co_qualname}":
                {"ops_per_task": round(o / tasks, 1), "calls_per_task": round(k / tasks, 2),
                 **({"lines": _lines(c, per_line, tasks, lines)} if lines else {})}
            for c, (o, k) in top}
    return out


def _lines(code, per_line: dict, tasks: int, least: float) -> list:
    """[line, bytecodes a task, its text] of ``code``'s lines with at least ``least``."""
    found = sorted((ln or 0, v / tasks) for (c, ln), v in per_line.items() if c is code)
    return [[ln, round(v, 1), linecache.getline(code.co_filename, ln).strip()[:90]]
            for ln, v in found if v >= least]


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=20)
    ap.add_argument("--scale", type=float, default=0.2)
    ap.add_argument("--only", action="append", choices=sorted(STEPS))
    ap.add_argument("--functions", type=int, default=0,
                    help="list the N plugin functions with most bytecodes per task")
    ap.add_argument("--lines", type=float, default=0, metavar="MIN",
                    help="with --functions: their lines with at least MIN bytecodes a task")
    ap.add_argument("--against", help="another version's src folder, counted alongside")
    ap.add_argument("--out", help="write the results here as JSON")
    args = ap.parse_args(argv)
    lines = []
    for name in args.only or ["stack-sum", "anomaly"]:
        w = build(name, int(STEPS[name] * args.scale), 190e6, store=False)
        model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
        q = count(model, args.workers, "queue")
        t = count(model, args.workers, "tidegate", args.functions, args.lines)
        line = {"workload": name, "workers": args.workers, "scale": args.scale,
                "tasks": t["tasks"], "queue": {k: round(v, 1) for k, v in q.items()},
                "tidegate": {k: round(v, 1) for k, v in t.items() if k != "functions"},
                "ops_ratio": round(t["ops_per_task"] / q["ops_per_task"], 3),
                "calls_ratio": round(t["calls_per_task"] / q["calls_per_task"], 3)}
        if args.against:
            other = _other(args.against, name, args.workers, args.scale)
            line["against"] = {"src": args.against, **{k: other[k] for k in (
                "queue", "tidegate", "ops_ratio", "calls_ratio")}}
            line["change"] = round(t["plugin_ops_per_task"]
                                   / other["tidegate"]["plugin_ops_per_task"], 3)
        lines.append(line)
        print(json.dumps(line), flush=True)
        for f, v in t.get("functions", {}).items():
            print(f"  {v['ops_per_task']:8.1f} ops/task {v['calls_per_task']:7.2f} calls/task  {f}")
            for ln, ops, text in v.get("lines", ()):
                print(f"      {ops:8.1f} {ln:5d}  {text}")
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"command": "python bench/plugin_ops.py " + " ".join(argv or sys.argv[1:]),
                       "lines": lines}, f, indent=1)


def _other(src: str, name: str, workers: int, scale: float) -> dict:
    """This script's line for one workload, run on the code in ``src``."""
    env = {**os.environ, "PYTHONPATH": os.path.abspath(src)}
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--workers", str(workers),
                          "--scale", str(scale), "--only", name],
                         env=env, capture_output=True, text=True, check=True).stdout  # fmt: skip
    return json.loads(out.strip().splitlines()[-1])


if __name__ == "__main__":
    main()
