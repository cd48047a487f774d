"""Make the README's report pictures: one workload on a real LocalCluster under dask's eager
scheduling (worker-saturation: inf), dask's default queuing and tidegate's plugin, each
recorded with ``tidegate.record()``, then one report and its PNGs side by side.

    python docs/make_report.py [--workload vorticity] [--steps 64] [--out docs]

Writes OUT/report.html (not committed: 2 MB of inlined JS), OUT/report.png,
OUT/report-memory.png and the three traces (OUT/report-*.jsonl, not committed).
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
    ap.add_argument("--workload", default="vorticity", choices=sorted(WORKLOADS))
    ap.add_argument("--steps", type=int, default=64, help="time steps per input (8 MB each)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    args = ap.parse_args()
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
