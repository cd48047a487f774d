"""Make the README's report pictures, each run recorded with ``tidegate.record()``:

- cluster: one workload on a real LocalCluster under dask's eager scheduling
  (worker-saturation: inf), dask's default queuing and tidegate's plugin -> OUT/report.png,
  OUT/report-memory.png (and OUT/report.html, OUT/report-*.jsonl, not committed);
- local: the anomaly pipeline on tidegate's thread runtime with and without a memory limit
  -> OUT/report-local.png (and OUT/report-local.html);
- twin: vorticity at the seed's scale (20 workers x 4 threads) in the twin, eager vs queue
  vs tidegate -> OUT/report-twin.png (and OUT/report-twin.html).

    python docs/make_report.py [--part cluster|local|twin|all] [--workload vorticity]
"""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import tempfile
import time

import dask
import distributed

import tidegate
import tidegate.distributed as td
from tidegate.report import save_png
from tidegate.workloads import WORKLOADS, build, make_inputs

POLICIES = {
    "eager": {"distributed.scheduler.worker-saturation": float("inf")},
    "queue": {},
    "tidegate": {},
}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--part", default="all", choices=["cluster", "local", "twin", "all"])
    ap.add_argument("--workload", default="vorticity", choices=sorted(WORKLOADS))
    ap.add_argument("--steps", type=int, default=64, help="time steps per input (8 MB each)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    args = ap.parse_args()
    for part in ("cluster", "local", "twin"):
        if args.part in (part, "all"):
            globals()[part](args)


def twin(args) -> None:
    """The seed's scale, in the twin: vorticity on 20 workers x 4 threads, 32 MiB chunks."""
    from tidegate.sim import simulate
    from tidegate.sim.workloads import build as build_graph

    work = build_graph("vorticity", args.steps, 32 * 2**20, store=False)
    results = simulate(work.graph, keys=work.keys, sizes=work.sizes, durations=work.durations,
                       workers=20, threads_per_worker=4, policy=list(POLICIES))
    traces = [r.trace for r in results]
    for tr in traces:
        tr.meta["name"] = f"twin, 20 x 4: {tr.meta['policy']}"
        print(f"{tr.name}: {tr.summary()['makespan']:.2f} s, peak held/worker "
              f"{max(tr.summary()['peak_memory_per_worker']) / 2**20:.0f} MiB")
    tidegate.report(traces, os.path.join(args.out, "report-twin.html"),
                    title="vorticity at the seed's scale in the twin")
    png = save_png(traces, os.path.join(args.out, "report-twin.png"), panels=("tasks", "memory"))
    print(f"png: {png}")


def local(args, limit="150MB") -> None:
    folder = tempfile.mkdtemp(prefix="tidegate-docs-")
    try:
        inputs = make_inputs(folder, args.steps)
        with tidegate.record(os.path.join(args.out, "report-local.html"),
                             save_traces=False) as rec:
            for memory_limit in (limit, "none"):
                dask.compute(build("anomaly", inputs, folder), scheduler=tidegate.get,
                             memory_limit=memory_limit)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if len(rec.traces) != 2:
        raise SystemExit("this tidegate's thread runtime records no traces (trace.sink())")
    for tr, label in zip(rec.traces, (f"memory_limit={limit}", "no memory_limit"), strict=True):
        tr.meta["name"] = f"anomaly, threads: {label}"
        print(f"{tr.name}: {tr.summary()}")
    tidegate.report(rec.traces, rec.path, title="anomaly on tidegate's thread runtime")
    png = save_png(rec.traces, os.path.join(args.out, "report-local.png"),
                   panels=("memory", "spills"))
    print(f"png: {png}")


def cluster(args) -> None:
    logging.getLogger("distributed").setLevel(logging.WARNING)
    folder = tempfile.mkdtemp(prefix="tidegate-docs-")
    traces = []
    try:
        inputs = make_inputs(folder, args.steps)
        for policy, config in POLICIES.items():
            with dask.config.set(config), distributed.LocalCluster(
                n_workers=args.workers, threads_per_worker=args.threads, processes=True,
                dashboard_address=":0",
            ) as cluster, distributed.Client(cluster) as client:
                if policy == "tidegate":
                    client.register_plugin(td.Plugin())
                store = build(args.workload, inputs, folder)
                t0 = time.perf_counter()
                with tidegate.record(os.path.join(folder, f"{policy}.html"),
                                     save_traces=False) as rec:
                    dask.compute(store)
                (tr,) = rec.traces
                tr.meta["name"] = f"{args.workload}: {policy}"
                traces.append(tr)
                s = tr.summary()
                print(f"{policy:9s} {time.perf_counter() - t0:5.1f} s  "
                      f"peak held/worker {max(s['peak_memory_per_worker']) / 2**20:6.0f} MiB  "
                      f"peak process/worker {max(s['peak_process_per_worker']) / 2**20:6.0f} MiB")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    out = args.out
    path = tidegate.report(traces, os.path.join(out, "report.html"),
                           title=f"{args.workload} on a LocalCluster: eager vs queue vs tidegate")
    for i, tr in enumerate(traces):
        tr.save(os.path.join(out, f"report-{i}.jsonl"))
    save_png(traces, os.path.join(out, "report.png"), panels=("tasks", "memory", "roots"))
    save_png(traces, os.path.join(out, "report-memory.png"), panels=("memory",))
    print(f"report: {path}")


if __name__ == "__main__":
    main()
