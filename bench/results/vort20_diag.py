"""vort20 (from below18_diag.py; --against NAME=SRC, repeatable): where vorticity's time goes below its working set (fresh process per run).

    PYTHONPATH=src python bench/results/below18_diag.py 140MB,170MB,200MB [--reps 1] [--against SRC]

Per run: wall, user/sys CPU and minor faults of the compute, spill bytes written/read, gate
refusals and idle seconds, fewest threads; from the trace, seconds with 0/1/2 tasks running and
task-seconds per group (the work done, whatever the overlap)."""
import argparse, json, os, shutil, sys, tempfile
from collections import defaultdict
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from rss import _pythonpath  # noqa: E402  (before tidegate: see below_working_set.py)
from dask.utils import parse_bytes
from tidegate.compare import run_isolated
from tidegate.trace import Trace
from tidegate.workloads import make_inputs


def concurrency(tasks):
    ev = sorted([(t.start, 1) for t in tasks] + [(t.stop, -1) for t in tasks])
    out, n, last = defaultdict(float), 0, ev[0][0]
    for t, d in ev:
        out[n] += t - last
        n, last = n + d, t
    return dict(out)


def one(name, sched, inputs, threads, limit, src, workload):
    d = tempfile.mkdtemp()
    path = os.path.join(d, "t.jsonl")
    try:
        with _pythonpath(src):
            m = run_isolated(workload, sched, inputs, threads, limit, trace_path=path)
        r = {"cell": name, "wall": m.wall_time, "peak": m.peak_rss, **(m.usage or {}),
             "load": os.getloadavg()[0]}
        if m.stats:
            s = m.stats
            r.update(written=s["spill_file_bytes"], loaded=s["bytes_loaded"],
                     dropped=s["bytes_dropped"], recomputed=s["tasks_recomputed"],
                     refusals=s["gate_refusals"], idle=s["gate_idle_time"],
                     fewest=s["fewest_threads"], spill_time=s["spill_time"])
        if os.path.exists(path):
            tasks = Trace.load(path).tasks
            r["conc"] = {k: round(v, 2) for k, v in sorted(concurrency(tasks).items())}
            g = defaultdict(float)
            for t in tasks:
                g[t.group] += t.stop - t.start
            r["groups"] = {k: round(v, 2) for k, v in sorted(g.items(), key=lambda kv: -kv[1])}
            r["task_s"] = round(sum(g.values()), 2)
        return r
    finally:
        shutil.rmtree(d, ignore_errors=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("limits")
    p.add_argument("--reps", type=int, default=1)
    p.add_argument("--against", action="append", default=[])
    p.add_argument("--workload", default="vorticity")
    p.add_argument("--threaded", default="2,1")
    p.add_argument("--json", default=None)
    a = p.parse_args()
    folder = tempfile.mkdtemp(prefix="below18-")
    runs = []
    try:
        inputs = make_inputs(folder, 100)
        cells = [(f"threaded {n}", "threads", int(n), None, None) for n in a.threaded.split(",") if n]
        for lim in a.limits.split(","):
            cells.append((f"new {lim}", "tidegate", 2, parse_bytes(lim), None))
            for src in a.against:  # NAME=PATH
                name, path = src.split("=")
                cells.append((f"{name} {lim}", "tidegate", 2, parse_bytes(lim), path))
        for rep in range(a.reps):
            for c in (cells if rep % 2 == 0 else cells[::-1]):
                r = one(c[0], c[1], inputs, c[2], c[3], c[4], a.workload)
                r["rep"] = rep
                runs.append(r)
                print(json.dumps(r), flush=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(runs, f, indent=1)


main()
