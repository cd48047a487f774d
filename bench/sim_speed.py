"""How fast the twin runs: wall time per simulated task, and where the time goes.

Graph: the stack-sum shape (per step: two loads, a sum, a store; 4 tasks), sizes 100 MB,
loads 0.5 s, sums 0.1 s, stores 1 s. Each run in a fresh process, one policy at a time.
Reports the wall time of building the model (incl. dask.order) and of the simulation, CPU
seconds and tasks per CPU second, the process's peak RSS, and (``--profile``) the share of
time per package. ``--against SRC`` runs another checkout's code alternately with this one
(same graph, same machine load) for a side-by-side ratio.

``--ops``: instead of timing, count the Python bytecodes and calls executed per task inside
``simulate()``, by area (the twin, dask/distributed, the plugin, the rest). Deterministic,
where CPU seconds on a shared machine swing 10-20%; tracing is ~50x slower, so use small
graphs (e.g. ``--tasks 2000 --workers 20``).

    python bench/sim_speed.py --tasks 100000 --workers 100 [--policy queue,eager] \
        [--against /work/main/src] [--repeat 3] [--profile | --ops]
"""

from __future__ import annotations

import os
import sys

# bench/distributed.py is named like the library: keep this folder off the import path.
_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _here]

import argparse
import cProfile
import json
import pstats
import resource
import statistics
import subprocess
import time
from pathlib import Path

from tidegate.sim import simulate
from tidegate.sim.fidelity import sleep_blob
from tidegate.sim.model import build_model

OUT = Path(__file__).parent / "results" / "sim_speed.json"
MB = 10**6


def graph(tasks: int):
    dsk = {}
    steps = tasks // 4
    for t in range(steps):
        dsk[("load-a", t)] = (sleep_blob, 0.5, 100 * MB)
        dsk[("load-b", t)] = (sleep_blob, 0.5, 100 * MB)
        dsk[("sum", t)] = (sleep_blob, 0.1, 100 * MB, ("load-a", t), ("load-b", t))
        dsk[("store", t)] = (sleep_blob, 1.0, 0, ("sum", t))
    keys = [("store", t) for t in range(steps)]
    return dsk, keys


def where(profile: cProfile.Profile) -> dict:
    by: dict = {}
    for (f, _, _), (_, _, tt, _, _) in pstats.Stats(profile).stats.items():
        f = f.split("site-packages/")[-1].split("src/")[-1]
        part = f.split("/")[0] if "/" in f else "builtins/other"
        if f.startswith("distributed/"):
            part = f.removesuffix(".py")
        by[part] = by.get(part, 0.0) + tt
    total = sum(by.values())
    ranked = sorted(by.items(), key=lambda x: -x[1])
    return {k: round(v / total, 3) for k, v in ranked if v / total > 0.01}


def child(args) -> dict:
    """One simulation in this process; its row."""
    dsk, keys = graph(args.tasks)
    durations = {k: v[1] for k, v in dsk.items()}
    sizes = {k: v[2] for k, v in dsk.items()}
    t0, c0 = time.perf_counter(), time.process_time()
    model = build_model(dsk, keys, sizes=sizes, durations=durations)
    model.priorities  # noqa: B018  (dask.order, once)
    del dsk
    t_model, c_model = time.perf_counter() - t0, time.process_time() - c0
    prof = cProfile.Profile() if args.profile else None
    counts = _Counts() if args.ops else None
    t0, c0 = time.perf_counter(), time.process_time()
    if prof:
        prof.enable()
    if counts:
        sys.settrace(counts.call)
    r = simulate(model, workers=args.workers, threads_per_worker=args.threads,
                 policy=args.policy, record_memory=False)
    if counts:
        sys.settrace(None)
    if prof:
        prof.disable()
    t_sim, c_sim = time.perf_counter() - t0, time.process_time() - c0
    row = {
        "tasks": len(model.dsk), "workers": args.workers, "threads": args.threads,
        "policy": args.policy, "model_s": round(t_model, 2), "simulate_s": round(t_sim, 2),
        "simulate_cpu_s": round(c_sim, 2), "model_cpu_s": round(c_model, 2),
        "end_to_end_cpu_s": round(c_model + c_sim, 2),
        "tasks_per_cpu_s": round(len(model.dsk) / c_sim),
        "load_average": os.getloadavg()[0], "messages": r.messages,
        "virtual_makespan_s": round(r.makespan, 1),
        "peak_rss_gb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6, 2),
        "profiled": bool(prof),
    }
    if prof:
        row["time_share"] = where(prof)
    if counts:
        n = len(model.dsk)
        row["ops_per_task"] = {k: round(v / n, 1) for k, v in sorted(counts.ops.items())}
        row["calls_per_task"] = {k: round(v / n, 2) for k, v in sorted(counts.calls.items())}
        row["total_ops_per_task"] = round(sum(counts.ops.values()) / n, 1)
    return row


class _Counts:
    """Bytecodes and calls by area of the code (sys.settrace with opcode events)."""

    def __init__(self) -> None:
        self.ops: dict = {}
        self.calls: dict = {}
        self._area: dict = {}  # code object -> area

    @staticmethod
    def area(filename: str) -> str:
        f = filename.replace(os.sep, "/")
        if "tidegate/sim/" in f:
            return "twin"
        if "tidegate/" in f:
            return "plugin"
        # the twin's quiet copies of dask's methods carry dask's file names (sim/quiet.py)
        return "dask" if "distributed/" in f else "other"

    def call(self, frame, event, arg):
        code = frame.f_code
        a = self._area.get(code)
        if a is None:
            a = self._area[code] = self.area(code.co_filename)
        self.calls[a] = self.calls.get(a, 0) + 1
        frame.f_trace_opcodes = True
        return self.local

    def local(self, frame, event, arg):
        if event == "opcode":
            a = self._area[frame.f_code]
            self.ops[a] = self.ops.get(a, 0) + 1
        return self.local


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tasks", type=int, default=100_000)
    ap.add_argument("--workers", type=int, default=100)
    ap.add_argument("--threads", type=int, default=4)
    ap.add_argument("--policy", default="queue", help="comma-separated")
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--ops", action="store_true", help="count bytecodes per task, no timing")
    ap.add_argument("--against", default=None, metavar="SRC",
                    help="also run another checkout's src/ (e.g. /work/main/src), alternating")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--out", default=str(OUT))
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args)))
        return
    # Each run in a fresh process: peak RSS is its own, and one code's leftovers never
    # slow the other's run.
    here = str(Path(__file__).resolve().parents[1] / "src")
    codes = [("this", here)] + ([("against", args.against)] if args.against else [])
    rows = []
    for rep in range(args.repeat):
        for policy in args.policy.split(","):
            for label, src in codes:
                cmd = [sys.executable, __file__, "--child", "--tasks", str(args.tasks),
                       "--workers", str(args.workers), "--threads", str(args.threads),
                       "--policy", policy] + (["--profile"] if args.profile else []) \
                    + (["--ops"] if args.ops else [])
                env = dict(os.environ, PYTHONPATH=src)
                out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True)
                row = json.loads(out.stdout.strip().splitlines()[-1])
                row.update(code=label, src=src, repeat=rep,
                           commit=_commit(src), when=time.strftime("%Y-%m-%d %H:%M"))
                print(json.dumps(row), flush=True)
                rows.append(row)
    if args.ops:
        ops_table(rows)
    else:
        table(rows)
    path = Path(args.out)
    old = json.loads(path.read_text()) if path.exists() else []
    path.write_text(json.dumps(old + rows, indent=1))


def _commit(src: str) -> str:
    out = subprocess.run(["git", "-C", src, "rev-parse", "--short", "HEAD"],
                         capture_output=True, text=True)
    dirty = subprocess.run(["git", "-C", src, "status", "--porcelain", "--", "."],
                           capture_output=True, text=True).stdout.strip()
    return out.stdout.strip() + ("+dirty" if dirty else "")


def ops_table(rows: list) -> None:
    print(f"\n{'policy':8} {'code':8} {'ops/task':>9} {'twin':>7} {'dask':>7} {'plugin':>7} "
          f"{'other':>7} {'twin calls':>10} {'other calls':>11}")
    for r in rows:
        o, c = r["ops_per_task"], r["calls_per_task"]
        print(f"{r['policy']:8} {r['code']:8} {r['total_ops_per_task']:>9.0f} "
              f"{o.get('twin', 0):>7.0f} {o.get('dask', 0):>7.0f} {o.get('plugin', 0):>7.0f} "
              f"{o.get('other', 0):>7.0f} {c.get('twin', 0):>10.1f} {c.get('other', 0):>11.1f}")


def table(rows: list) -> None:
    """Medians per code and policy; CPU seconds are the steadier number on a shared box."""
    groups: dict = {}
    for r in rows:
        groups.setdefault((r["policy"], r["code"]), []).append(r)
    print(f"\n{'policy':8} {'code':8} {'runs':>4} {'wall s':>8} {'CPU s':>8} {'model CPU':>9} "
          f"{'total CPU':>9} {'tasks/CPU s':>11} "
          f"{'RSS GB':>7} {'messages':>9} {'virtual s':>9}")
    base = {}
    for (policy, code), rs in sorted(groups.items()):
        med = lambda f: statistics.median(r[f] for r in rs)  # noqa: E731
        print(f"{policy:8} {code:8} {len(rs):>4} {med('simulate_s'):>8.1f} "
              f"{med('simulate_cpu_s'):>8.1f} {med('model_cpu_s'):>9.1f} "
              f"{med('end_to_end_cpu_s'):>9.1f} {med('tasks_per_cpu_s'):>11.0f} "
              f"{med('peak_rss_gb'):>7.2f} {med('messages'):>9.0f} "
              f"{med('virtual_makespan_s'):>9.1f}")
        base.setdefault(policy, {})[code] = (med("simulate_cpu_s"), med("end_to_end_cpu_s"))
    for policy, b in base.items():
        if "against" in b:
            print(f"{policy}: against / this: simulate CPU s "
                  f"{b['against'][0] / b['this'][0]:.2f}x, "
                  f"end to end {b['against'][1] / b['this'][1]:.2f}x")


if __name__ == "__main__":
    main()
