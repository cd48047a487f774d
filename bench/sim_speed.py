"""How fast the twin runs: wall time per simulated task, and where the time goes.

Graph: the stack-sum shape (per step: two loads, a sum, a store; 4 tasks), sizes 100 MB,
loads 0.5 s, sums 0.1 s, stores 1 s. One process, one policy at a time. Reports the wall
time of building the model (incl. dask.order) and of the simulation, tasks/s, peak RSS of
this process, and (``--profile``) the share of time per package.

    python bench/sim_speed.py --tasks 100000 --workers 100 [--policy queue] [--profile]
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


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tasks", type=int, default=100_000)
    ap.add_argument("--workers", type=int, default=100)
    ap.add_argument("--threads", type=int, default=4)
    ap.add_argument("--policy", default="queue")
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--out", default=str(OUT))
    args = ap.parse_args()
    dsk, keys = graph(args.tasks)
    durations = {k: v[1] for k, v in dsk.items()}
    sizes = {k: v[2] for k, v in dsk.items()}
    t0 = time.perf_counter()
    model = build_model(dsk, keys, sizes=sizes, durations=durations)
    model.priorities  # noqa: B018  (dask.order, once)
    t_model = time.perf_counter() - t0
    prof = cProfile.Profile() if args.profile else None
    t0, c0 = time.perf_counter(), time.process_time()
    if prof:
        prof.enable()
    r = simulate(model, workers=args.workers, threads_per_worker=args.threads,
                 policy=args.policy, record_memory=False)
    if prof:
        prof.disable()
    t_sim, c_sim = time.perf_counter() - t0, time.process_time() - c0
    row = {
        "tasks": len(dsk), "workers": args.workers, "threads": args.threads,
        "policy": args.policy, "model_s": round(t_model, 2), "simulate_s": round(t_sim, 2),
        "simulate_cpu_s": round(c_sim, 2), "tasks_per_cpu_s": round(len(dsk) / c_sim),
        "load_average": os.getloadavg()[0], "messages": r.messages,
        "virtual_makespan_s": round(r.makespan, 1),
        "peak_rss_gb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6, 2),
        "profiled": bool(prof),
    }
    if prof:
        row["time_share"] = where(prof)
    print(json.dumps(row))
    out = Path(args.out)
    rows = json.loads(out.read_text()) if out.exists() else []
    rows.append(row)
    out.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
