"""The seed workloads in the twin (dask's own SchedulerState + WorkerStates on a virtual
clock), eager vs queue vs tidegate side by side on the same graph: peak memory per worker,
makespan, bytes transferred (virtual, deterministic for a given PYTHONHASHSEED), and the
CPU the simulation spent per task (process time; the workers' simulation is the same code
for every policy, so the difference is the scheduler's: dask's own or dask plus the plugin).

    python bench/twin_workloads.py [--workers 20] [--steps 2000] [--only vorticity]
    python bench/twin_workloads.py --zarr 48 --workers 4 --threads 1   # the LocalCluster's

``--form today|store|both``: the graphs as today (the stores are the outputs) and/or in the
store form a computed ``da.store`` / ``to_zarr`` has (stores return None, one final task
over them: ``tidegate.sim.workloads``), rows side by side (default: today).

``--zarr STEPS``: the graphs bench/distributed.py runs as ``seed-*`` and ``vorticity-files``
(tidegate.workloads on zarr inputs of STEPS x 1000 x 1000 float64, 4 steps per 32 MB chunk,
chunks straddled by slices, split by the rechunk), built on inputs holding no data, so the
LocalCluster's misses can be looked at deterministically.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _here]

from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

from tidegate.sim import simulate  # noqa: E402
from tidegate.sim.model import build_model  # noqa: E402
from tidegate.sim.workloads import WORKLOADS, build  # noqa: E402
from tidegate.workloads import NAMES as ZARR_NAMES  # noqa: E402

POLICIES = ("eager", "queue", "tidegate")


def _empty_inputs(folder: str, steps: int) -> dict:
    """Zarr arrays a and b shaped as tidegate.workloads.make_inputs writes them, with no
    chunk written: the twin reads their metadata only."""
    import zarr

    from tidegate.workloads import SIDE, STEPS_PER_CHUNK

    paths = {}
    for name in ("a", "b"):
        paths[name] = os.path.join(folder, f"{name}.zarr")
        zarr.create_array(paths[name], shape=(steps, SIDE, SIDE), overwrite=True,
                          chunks=(STEPS_PER_CHUNK, SIDE, SIDE), dtype="f8", compressors=None)
    return paths


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=20)
    ap.add_argument("--threads", type=int, default=4)
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--chunk", type=float, default=190e6)
    ap.add_argument("--bandwidth", default="1GB/s")
    # Both families' names: the twin's synthetic ones, and with --zarr tidegate.workloads'
    # (vorticity-files is only the latter); checked against the chosen family below.
    ap.add_argument("--only", action="append", choices=sorted(set(WORKLOADS) | set(ZARR_NAMES)))
    ap.add_argument("--policies", default=",".join(POLICIES))
    ap.add_argument("--out", default=None)
    ap.add_argument("--form", choices=("today", "store", "both"), default="today")
    ap.add_argument("--zarr", type=int, default=None, metavar="STEPS",
                    help="bench/distributed.py's zarr workloads instead (see above)")
    args = ap.parse_args(argv)
    family = ZARR_NAMES if args.zarr else WORKLOADS
    unknown = sorted(set(args.only or ()) - set(family))
    if unknown:
        ap.error(f"--only {', '.join(unknown)}: not a {'--zarr' if args.zarr else 'twin'} "
                 f"workload (choose from {', '.join(sorted(family))})")
    policies = args.policies.split(",")
    out = {"command": "python bench/twin_workloads.py " + " ".join(argv or sys.argv[1:]),
           "workers": args.workers, "threads": args.threads, "steps": args.steps,
           "chunk": args.chunk, "bandwidth": args.bandwidth, "form": args.form, "results": {}}
    forms = {"today": (False,), "store": (True,), "both": (False, True)}[args.form]
    table = Table(title=f"twin: {args.workers} workers x {args.threads} threads, "
                        f"{args.steps} steps of {args.chunk / 1e6:.0f} MB, {args.bandwidth}")
    for col in ("workload", "form", "policy", "peak/worker GB", "vs queue", "makespan s",
                "vs queue", "moved GB", "vs queue", "CPU µs/task", "vs queue"):
        table.add_column(col, justify="left" if col in ("workload", "form", "policy") else "right")
    if args.zarr:
        import tempfile

        # A fixed path: the keys' tokens follow the paths, and the twin orders a graph by
        # its keys' text, so another folder is another (equally valid) schedule.
        folder = os.path.join(tempfile.gettempdir(), "tidegate-twin-zarr")
        inputs = _empty_inputs(folder, args.zarr)
        names = args.only or ["anomaly", "rechunk-add", "slice-add", "weighted",
                              "vorticity-files"]
        table.title = (f"twin: {args.workers} workers x {args.threads} threads, zarr inputs "
                       f"of {args.zarr} steps (32 MB chunks), {args.bandwidth}")
    for name in names if args.zarr else args.only or sorted(WORKLOADS):
        for store in forms:
            form = "store" if store else "today"
            if args.zarr:
                from tidegate import workloads as zw

                model = build_model(zw.build(name, inputs, folder), finalize=store)
            else:
                model = build(name, args.steps, args.chunk, store=store).model()
            rows = {}
            for p in policies:
                c0 = time.process_time()
                r = simulate(model, workers=args.workers, threads_per_worker=args.threads,
                             policy=p, bandwidth=args.bandwidth, record_memory=False)
                cpu = time.process_time() - c0
                n = len(r.trace.tasks)
                peaks = r.peak_memory_per_worker
                rows[p] = {"peak_per_worker": max(peaks), "peak_mean": sum(peaks) / len(peaks),
                           "makespan": r.makespan, "bytes_transferred": r.bytes_transferred,
                           "cpu_per_task_us": 1e6 * cpu / max(1, n), "tasks": n}
                print(name, form, p, rows[p], flush=True)
            q = rows.get("queue")
            for p, v in rows.items():
                def ratio(k):
                    return f"{v[k] / q[k]:.2f}" if q and q[k] else "-"
                table.add_row(name, form, p, f"{v['peak_per_worker'] / 1e9:.2f}",
                              ratio("peak_per_worker"), f"{v['makespan']:.1f}", ratio("makespan"),
                              f"{v['bytes_transferred'] / 1e9:.1f}", ratio("bytes_transferred"),
                              f"{v['cpu_per_task_us']:.0f}", ratio("cpu_per_task_us"))
            out["results"][name if form == "today" else f"{name}+store"] = rows
    Console(width=160).print(table)
    if args.zarr:
        import shutil

        shutil.rmtree(folder, ignore_errors=True)
    tag = f"-zarr{args.zarr}" if args.zarr else ""
    tag += "" if args.form == "today" else f"-{args.form}"
    path = Path(args.out or Path(__file__).parent / "results"
                / f"twin-{args.workers}x{args.threads}{tag}.json")
    path.write_text(json.dumps(out, indent=1))
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
