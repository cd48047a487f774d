"""bench/distributed.py's LocalCluster workloads in the twin, at its small cluster shapes,
with the durations those tasks really take: is tidegate's wall above queue's there policy
or noise?

Each workload is built exactly as bench/distributed.py builds it (its own builders; the
zarr ones on real inputs of ``--steps`` steps written once under a fixed folder, so keys and
the twin's schedule are stable), its optimised graph (the one ``Client.compute`` sends) is run
once on dask's synchronous scheduler with every task timed (``--time-reps`` times, the
median per task group kept), and the twin is given those durations per group, the real
bench's network (``--bandwidth`` into each worker, senders free, 1 ms latency) and a
``thread_lag`` per task (the real tasks' overrun of their duration on a loaded LocalCluster;
``--lags``). Per cell (workload x cluster shape x lag): tidegate / queue makespan, peak per
worker and bytes moved over ``--seeds`` twin seeds (median, min, max).

    python bench/wall24_twin.py [--shapes 2x1,4x1,2x2] [--seeds 5] [--lags 0.002,0.01]
        [--only stencil] [--out bench/results/wall24-twin.json]
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import json
import math
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _here]

import dask  # noqa: E402
import dask.local  # noqa: E402
from dask.callbacks import Callback  # noqa: E402
from dask.sizeof import sizeof  # noqa: E402
from dask.utils import key_split  # noqa: E402

from tidegate.sim import simulate  # noqa: E402
from tidegate.sim.model import Model, build_model, graph_of  # noqa: E402

FOLDER = "/tmp/wall24-zarr"


def load_bench(filename: str, name: str):
    """A script of bench/ loaded as module ``name`` from its path (bench/ stays off sys.path:
    its distributed.py is not the package)."""
    spec = importlib.util.spec_from_file_location(name, os.path.join(_here, filename))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _bench():
    return load_bench("distributed.py", "bench_distributed")


def _collection(bd, name: str, steps: int):
    if name.startswith("seed-") or name == "vorticity-files":
        from tidegate.workloads import build, make_inputs

        # A folder per steps, written whole under another name and renamed: one folder for
        # every steps kept the arrays written last beside every steps' marker, so a run at
        # 48 steps read 16 steps' arrays (seed46); concurrent runs share the folder
        # (the paths kept in the process by steps: a process building two step counts)
        folder = os.path.join(FOLDER, f"steps-{steps}")
        if bd._INPUTS.get("twin_steps") != steps:
            if not os.path.isdir(folder):
                os.makedirs(FOLDER, exist_ok=True)
                part = tempfile.mkdtemp(dir=FOLDER)
                try:
                    make_inputs(part, steps)
                    os.rename(part, folder)
                except OSError:  # (another run's folder came first: the same arrays)
                    pass
                finally:
                    shutil.rmtree(part, ignore_errors=True)
            bd._INPUTS["paths"] = {n: os.path.join(folder, f"{n}.zarr") for n in ("a", "b")}
            bd._INPUTS["twin_steps"] = steps
        out = os.path.join(folder, "out-" + name)
        return build(name.removeprefix("seed-"), bd._INPUTS["paths"], out)
    # bench/distributed.py's delayed consumers are impure (uuid keys, new each process):
    # pure keys keep the measured durations' keys and the twin's order stable across runs
    with dask.config.set(delayed_pure=True):
        return bd.WORKLOADS[name]()


class Timer(Callback):
    """Each task's seconds (``took``) and dask.sizeof of its result (``size``), by key, of a
    dask.local run inside ``with``."""

    def __init__(self):
        super().__init__()
        self.t0: dict = {}
        self.took: dict = {}
        self.size: dict = {}

    def _pretask(self, key, dsk, state):
        self.t0[key] = time.perf_counter()

    def _posttask(self, key, result, dsk, state, worker_id):
        self.took[key] = time.perf_counter() - self.t0.pop(key)
        self.size[key] = sizeof(result)


def measured(x, reps: int) -> tuple[dict, dict]:
    """Per task of the optimised graph (run ``reps`` times on dask's sync scheduler): its
    median seconds and the dask.sizeof of its result, keyed by ``repr(key)``."""
    dsk, out, _, _ = graph_of(x, finalize=True)
    took: dict = {}
    size: dict = {}
    for _ in range(reps):
        with Timer() as t:
            dask.local.get_sync(dsk, out)
        for k, s in t.took.items():
            took.setdefault(repr(k), []).append(s)
        size.update({repr(k): v for k, v in t.size.items()})
    return {k: statistics.median(v) for k, v in took.items()}, size


def cached(name: str, x, reps: int, path: Path) -> tuple[dict, dict]:
    """:func:`measured`, kept in ``path`` so that runs on other code use the same model."""
    store = json.loads(path.read_text()) if path.exists() else {}
    if name not in store:
        d, s = measured(x, reps)
        store[name] = {"durations": d, "sizes": s, "load1": os.getloadavg()[0]}
        path.write_text(json.dumps(store))
    return store[name]["durations"], store[name]["sizes"]


def model_of(bd, name: str, steps: int, reps: int, path: Path) -> Model:
    x = _collection(bd, name, steps)
    d, s = cached(name, x, reps, path)
    # A key not measured (a zarr store's token can differ from the measured run's): the
    # median of its group's measured tasks.
    groups: dict = {}
    for k, v in d.items():
        groups.setdefault(key_split(ast.literal_eval(k)), []).append((v, s.get(k)))
    dg = {g: statistics.median(v for v, _ in vs) for g, vs in groups.items()}
    sg = {g: statistics.median(b for _, b in vs if b is not None) for g, vs in groups.items()}

    def duration(k):
        v = d.get(repr(k))
        return v if v is not None else dg.get(key_split(k))

    def size(k):
        v = s.get(repr(k))
        return v if v is not None else sg.get(key_split(k))

    return build_model(x, finalize=True, durations=duration, sizes=size)


def cell(model: Model, shape: str, lag: float, seeds: int, bandwidth: float) -> dict:
    w, t = map(int, shape.split("x"))
    runs: dict = {"queue": [], "tidegate": []}
    for seed in range(seeds):
        for policy, r in zip(("queue", "tidegate"), simulate(
                model, workers=w, threads_per_worker=t, policy=["queue", "tidegate"],
                bandwidth=bandwidth, outgoing_bandwidth=math.inf, latency=0.001,
                thread_lag=lag, seed=seed, record_memory=False, processes=1)):
            runs[policy].append({"makespan": r.makespan,
                                 "peak": max(r.peak_memory_per_worker),
                                 "moved": r.bytes_transferred})
    ratios = {}
    for k in ("makespan", "peak", "moved"):
        xs = [(a[k] / b[k]) if b[k] else (1.0 if not a[k] else math.inf)
              for a, b in zip(runs["tidegate"], runs["queue"])]
        ratios[k] = {"median": statistics.median(xs), "min": min(xs), "max": max(xs), "all": xs}
    return {"runs": runs, "ratios": ratios}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shapes", default="2x1,4x1,2x2")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--lags", default="0.002,0.01")
    ap.add_argument("--bandwidth", type=float, default=200e6)
    ap.add_argument("--steps", type=int, default=48)
    ap.add_argument("--time-reps", type=int, default=3)
    ap.add_argument("--only", action="append")
    ap.add_argument("--measured", default=str(Path(_here) / "results" / "wall24-measured.json"),
                    help="measured durations and sizes per task (made once, then reused)")
    ap.add_argument("--out", default=str(Path(_here) / "results" / "wall24-twin.json"))
    args = ap.parse_args(argv)
    bd = _bench()
    bd._INPUTS["steps"] = args.steps
    names = args.only or (list(bd.DEFAULT) + [f"seed-{n}" for n in bd.SEED])
    out = {"command": "python bench/wall24_twin.py " + " ".join(argv or sys.argv[1:]),
           "load1": os.getloadavg()[0], "workloads": {}}
    for name in names:
        model = model_of(bd, name, args.steps, args.time_reps, Path(args.measured))
        total = sum(model.durations.values())
        groups: dict = {}
        for k, v in model.durations.items():
            g = groups.setdefault(key_split(k), [0, 0.0, 0])
            g[0] += 1
            g[1] += v
            g[2] += model.sizes[k]
        res = {"groups": groups, "tasks": len(model.durations), "task_seconds": total,
               "cells": {}}
        print(f"{name}: {len(model.durations)} tasks, {total:.2f} task-s; " + ", ".join(
            f"{g} {n}x{t / n * 1e3:.1f}ms/{b / n / 1e6:.2f}MB" for g, (n, t, b) in
            sorted(groups.items(), key=lambda kv: -kv[1][1])[:8]), flush=True)
        for lag in map(float, args.lags.split(",")):
            for shape in args.shapes.split(","):
                c = cell(model, shape, lag, args.seeds, args.bandwidth)
                res["cells"][f"{shape} lag{lag * 1e3:g}ms"] = c
                r = c["ratios"]
                q = c["runs"]["queue"]
                print(f"  {shape} lag {lag * 1e3:4.1f} ms  tidegate/queue makespan "
                      f"{r['makespan']['median']:.3f} "
                      f"({r['makespan']['min']:.3f}-{r['makespan']['max']:.3f})"
                      f"  peak {r['peak']['median']:.2f} "
                      f"({r['peak']['min']:.2f}-{r['peak']['max']:.2f})"
                      f"  moved {r['moved']['median']:.2f} "
                      f"({r['moved']['min']:.2f}-{r['moved']['max']:.2f})"
                      f"  queue makespan {statistics.median(v['makespan'] for v in q):.2f} s",
                      flush=True)
        out["workloads"][name] = res
        Path(args.out).write_text(json.dumps(out, indent=1))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
