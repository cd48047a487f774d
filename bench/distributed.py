"""dask's default queuing vs eager (worker-saturation inf) vs tidegate's plugin, on one
LocalCluster setup (2 worker processes x 2 threads, dask's spilling and pausing off, so
nothing hides overproduction), a fresh cluster per run so RSS starts clean. Runs are
interleaved (queue, eager, tidegate; eager, tidegate, queue; ...); medians of ``--reps`` runs.

Per run: peak RSS of the busiest worker (sampled every 10 ms inside each worker process),
peak managed bytes of the busiest worker (``worker.state.nbytes``), wall time, bytes
transferred between workers.

    python bench/distributed.py [--reps 3] [--only loaders]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

# This file is named like the library it benchmarks: keep its folder off the import path.
_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _here]

import dask
import dask.array as da
import numpy as np
from dask import delayed
from distributed import Client, LocalCluster, wait  # noqa: E402
from rich.console import Console
from rich.table import Table

import tidegate.distributed as td
from tidegate.testing import QUIET_MEMORY

MODES = ("queue", "eager", "tidegate", "tidegate-first-task")
OUT = Path(__file__).parent / "results" / "distributed.json"


# -- workloads --------------------------------------------------------------------------
WORDS = "amber birch cedar dune ember fjord grove heath inlet juniper kelp larch moss".split()


def _load(i, n):
    return np.full(n, float(i))


def _combine(a, b):
    time.sleep(0.05)
    return float((a * b).sum())


def loaders(n=80, mb=16):
    """Unique-key delayed loaders (dask/distributed#8133) combined in pairs by a slower
    consumer: dask does not see them as roots, so even its queuing sends them all at once."""
    rng = random.Random(0)
    names = set()
    while len(names) < n:
        names.add("load-" + "-".join(rng.sample(WORDS, 4)))
    size = mb * 2**20 // 8
    xs = [delayed(_load)(i, size, dask_key_name=k) for i, k in enumerate(sorted(names))]
    pairs = [delayed(_combine)(xs[2 * i], xs[2 * i + 1]) for i in range(n // 2)]
    return delayed(sum)(pairs)


def stack_sum(side=6000, chunk=1000):
    """Two random arrays meeting chunk by chunk: co-assignment saves transfers."""
    rng = da.random.RandomState(0)
    a = rng.random((side, side), chunks=chunk)
    b = rng.random((side, side), chunks=chunk)
    return (da.stack([a, b]).sum(0) ** 2).mean(axis=0)


def offset_slices(side=6000, chunk=1000):
    rng = da.random.RandomState(1)
    a = rng.random((side, side), chunks=chunk)
    b = rng.random((side, side), chunks=chunk)
    return (a[1:] - b[1:]).std(axis=0)


def _laplace(x):
    """A five-point stencil on one block (with its one-cell halo)."""
    y = np.zeros_like(x)
    y[1:-1, 1:-1] = x[:-2, 1:-1] + x[2:, 1:-1] + x[1:-1, :-2] + x[1:-1, 2:] - 4 * x[1:-1, 1:-1]
    return y


def stencil(side=6000, chunk=1000):
    """A halo exchange (map_overlap, depth 1): each block's edges feed up to eight
    neighbours' overlaps, so blocks that meet should be on one worker (issue 9, part 2)."""
    a = da.random.RandomState(2).random((side, side), chunks=chunk)
    return a.map_overlap(_laplace, depth=1, boundary="none").std(axis=0)


def rechunk(side=6000, chunk=1000):
    """A rechunk whose output blocks (2000 x 500) each take pieces of two input blocks and
    whose input blocks each feed four outputs: merges of pieces, then a reduction."""
    a = da.random.RandomState(3).random((side, side), chunks=chunk)
    return (a.rechunk((2 * chunk, chunk // 2)) * 2).std(axis=0)


def _open(i):
    return ("handle", i)  # a tiny root: opening a file


def _read(handle, n):
    return np.full(n, float(handle[1]))


def _select(x):
    return x[::2].copy()


def open_read_select(n=80, mb=16):
    """Unique-key opens (tiny roots), each read (16 MB) then selected (8 MB); selects
    combined in pairs by a slower consumer. The memory is held one and two hops below the
    root: roots must count until the select is used (issue 9, part 1)."""
    rng = random.Random(1)
    names = set()
    while len(names) < n:
        names.add("-".join(rng.sample(WORDS, 4)))
    size = mb * 2**20 // 8
    ends = []
    for i, k in enumerate(sorted(names)):
        h = delayed(_open)(i, dask_key_name="open-" + k)
        r = delayed(_read)(h, size, dask_key_name="read-" + k)
        ends.append(delayed(_select)(r, dask_key_name="select-" + k))
    pairs = [delayed(_combine)(ends[2 * i], ends[2 * i + 1]) for i in range(n // 2)]
    return delayed(sum)(pairs)


_INPUTS: dict = {}


def _zarr(name):
    """A workload of tidegate.workloads on zarr inputs (steps x 1000 x 1000 float64, 32 MB
    chunks; --steps, default 48), written once per bench run, its result stored to zarr."""
    import atexit
    import shutil
    import tempfile

    from tidegate.workloads import build, make_inputs

    if "folder" not in _INPUTS:
        _INPUTS["folder"] = tempfile.mkdtemp(prefix="tidegate-bench-")
        # GBs of zarr: removed at exit also when a script imports this module (session 40:
        # importers' leftovers filled the disk).
        atexit.register(shutil.rmtree, _INPUTS["folder"], ignore_errors=True)
        _INPUTS["paths"] = make_inputs(_INPUTS["folder"], _INPUTS.get("steps", 48))
    return build(name, _INPUTS["paths"], tempfile.mkdtemp(dir=_INPUTS["folder"]))


def vorticity_files():
    """The demo's pipeline (tidegate.workloads.vorticity_files): per step an open per file,
    a 32 MB read, the vorticity against three shared grid chains, a zarr store."""
    return _zarr("vorticity-files")


WORKLOADS = {"loaders": loaders, "open-read-select": open_read_select,
             "stack-sum": stack_sum, "offset-slices": offset_slices,
             "stencil": stencil, "rechunk": rechunk, "vorticity-files": vorticity_files}
# The seed's workloads (dask/distributed#6360) on the same zarr inputs: --only seed-anomaly.
SEED = ("slice-add", "rechunk-add", "weighted", "anomaly")
WORKLOADS.update({f"seed-{n}": (lambda n=n: _zarr(n)) for n in SEED})
DEFAULT = ("loaders", "open-read-select", "stack-sum", "offset-slices", "stencil", "rechunk",
           "vorticity-files")


# -- one run ----------------------------------------------------------------------------
def _set_saturation(dask_scheduler, value):
    dask_scheduler.WORKER_SATURATION = value
    for ws in dask_scheduler.workers.values():
        dask_scheduler.check_idle_saturated(ws)


def run(workload, mode, config, workers=2, threads=2, bandwidth=None):
    """One measured run on a fresh cluster (so RSS starts clean); same settings each time.
    ``bandwidth``: bytes/s into each worker (tidegate.demo's SlowNetwork), None: free."""
    from tidegate.demo import _peaks, _worker_plugins

    SlowNetwork, PeakMemory = _worker_plugins()
    load1 = os.getloadavg()[0]

    with dask.config.set(config), LocalCluster(
        n_workers=workers, threads_per_worker=threads, processes=True, memory_limit=0,
        dashboard_address=":0",
    ) as cluster, Client(cluster) as client:
        client.register_plugin(PeakMemory())
        if bandwidth:
            client.register_plugin(SlowNetwork(bandwidth))
        if mode == "tidegate":
            client.register_plugin(td.Plugin())
        elif mode == "tidegate-first-task":  # roots counted until their first consumer
            client.register_plugin(td.Plugin(chain_keep=float("inf")))
        elif mode == "eager":
            client.run_on_scheduler(_set_saturation, value=float("inf"))
        x = WORKLOADS[workload]()
        t0 = time.perf_counter()
        f = client.compute(x)
        wait(f)
        wall = time.perf_counter() - t0
        f.result()
        del f
        stats = client.run(_peaks)
    return {
        "load1": load1,  # the shared machine's 1-minute load at the start: walls follow it
        "wall_s": wall,
        "peak_rss_mb": max(s["rss"] + s["base"] for s in stats.values()) / 2**20,
        "peak_rss_growth_mb": max(s["rss"] for s in stats.values()) / 2**20,
        "peak_managed_mb": max(s["managed"] for s in stats.values()) / 2**20,
        "transferred_mb": sum(s["sent"] for s in stats.values()) / 2**20,
    }


def _save(args, argv, runs) -> dict:
    """Write the runs so far and their medians to ``args.out``; the medians."""
    medians = {w: {m: {k: statistics.median(r[k] for r in rs) for k in rs[0]}
                   for m, rs in ms.items() if rs} for w, ms in runs.items()}
    net = f"{args.bandwidth / 1e6:.0f} MB/s" if args.bandwidth else "free"
    out = Path(args.out)
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps({
        "cluster": f"LocalCluster(n_workers={args.workers}, threads_per_worker="
                   f"{args.threads}, processes=True), spill/pause/terminate off, network {net}",
        "command": "python bench/distributed.py " + " ".join(argv or sys.argv[1:]),
        "cpu_count": os.cpu_count(), "reps": args.reps, "median": medians, "runs": runs,
    }, indent=1))
    return medians


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--only", choices=list(WORKLOADS), action="append")
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--out", default=str(OUT))
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--bandwidth", type=float, default=None, help="bytes/s into each worker")
    ap.add_argument("--steps", type=int, default=48, help="time steps of the zarr workloads")
    args = ap.parse_args(argv)
    _INPUTS["steps"] = args.steps
    modes = args.modes.split(",")
    workloads = args.only or list(DEFAULT)
    config = {**QUIET_MEMORY, "distributed.scheduler.worker-saturation": 1.1}
    runs: dict = {w: {m: [] for m in modes} for w in workloads}
    medians: dict = {}
    for rep in range(args.reps):
        for w in workloads:
            # Mode order turns each rep so no mode always runs right after another's teardown.
            for m in modes[rep % len(modes):] + modes[:rep % len(modes)]:
                try:
                    r = run(w, m, config, args.workers, args.threads, args.bandwidth)
                except Exception as e:  # e.g. a cluster's close timing out on a loaded machine
                    print(f"rep {rep} {w} {m} failed: {e!r}", flush=True)
                    continue
                runs[w][m].append(r)
                print(f"rep {rep} {w:14} {m:8} " + " ".join(
                    f"{k}={v:.2f}" for k, v in r.items()), flush=True)
                medians = _save(args, argv, runs)  # each run: a matrix cut short keeps its runs

    net = f"{args.bandwidth / 1e6:.0f} MB/s" if args.bandwidth else "free"
    setup = f"{args.workers} workers x {args.threads} threads, network {net}"
    table = Table(title=f"dask.distributed, {setup}, median of {args.reps} (min-max)")
    for col in ("workload", "mode", "peak RSS/worker MB", "peak managed/worker MB",
                "wall s", "transferred MB", "RSS vs queue", "wall vs queue", "xfer vs queue"):
        table.add_column(col, justify="left" if col in ("workload", "mode") else "right")
    def spread(w, m, k, fmt):
        xs = [r[k] for r in runs[w][m]]
        return f"{fmt.format(statistics.median(xs))} ({fmt.format(min(xs))}-{fmt.format(max(xs))})"

    for w, ms in medians.items():
        q = ms.get("queue")
        for m, v in ms.items():
            table.add_row(w, m, spread(w, m, "peak_rss_mb", "{:.0f}"),
                          spread(w, m, "peak_managed_mb", "{:.0f}"),
                          spread(w, m, "wall_s", "{:.2f}"),
                          spread(w, m, "transferred_mb", "{:.0f}"),
                          f"{v['peak_rss_mb'] / q['peak_rss_mb']:.2f}" if q else "-",
                          f"{v['wall_s'] / q['wall_s']:.2f}" if q else "-",
                          f"{v['transferred_mb'] / q['transferred_mb']:.2f}"
                          if q and q["transferred_mb"] else "-")
    Console(width=150).print(table)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
