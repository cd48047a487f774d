"""Fingerprints of the plugin's decisions in the twin: one hash per configuration over the
whole trace (every task's worker, thread, start and stop; every transfer; the memory
samples; peaks, makespan, bytes moved, messages). A change meant to make the plugin cheaper
must leave every fingerprint as it was.

    PYTHONPATH=<src> python bench/plugin_fingerprints.py OUT.json [--compare OLD.json]

25 configurations, tidegate only: the seven twin workloads at 20x4 (1 GB/s, 300 steps),
100x4 (200 MB/s, 600 steps) and 20x4 under a budget (half of a 2 GB memory_limit), and four
of bench/distributed.py's zarr graphs at 4x1 (200 MB/s). zarr slice-add is left out: its
store target's token differs per run, so its schedule does too, on any code. Then the same
25 in the store form (labels ``store:<name>|...``, session 9): the stores return ``None``
and one final task waits for all of them, as a computed ``da.store`` / ``to_zarr`` has it
(``tidegate.sim.workloads``, ``build(..., store=True)``); the first 25 are the graphs
without it, as recorded in plugin_fingerprints-114059e.json.

Then 12 shapes the 50 lack (session 22; a placement change once broke tests/test_stencil.py
while the 50 stayed identical): test_stencil's twin stencil (map_overlap over 8 MB blocks,
200 MB/s) with 36 blocks at 2x1, 4x1, 2x2, 4x2 and 4x2 under a budget, 144 blocks at 8x2,
400 at 20x4; and sweeps, readers of widely shared computed data: tests/test_sim.py's 300
readers of one input of 100 kB and of 4 MB at 4x1, 1,000 readers of 40 MB at 20x4, 2,000
at 100x4, and tests/test_annotations_twin.py's 8 MB weights read by 200 products (12x2,
100 MB/s). Inputs over 1 MiB go by the broadcast waves (tidegate.distributed.broadcast),
their readers through its gate.

``--form``: ``all`` (the default), ``both`` (the 50), ``today`` or ``store`` (one half of
the 50), ``shapes`` (the 12).

Which reference: ``--compare bench/results/plugin_fingerprints-twin22.json`` holds all of
them (the 50 and the shapes, main at session 22). plugin_fingerprints-twin19.json holds
the 50 only; compared with it a run says "50/50 identical" and lists the shapes as not
compared. A change meant to move decisions writes a new reference and names the traces
that moved.

Runs with PYTHONHASHSEED=0 (set it in the environment); about two minutes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import operator
import os
import sys
import tempfile
import time

_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _here]

from tidegate.sim import simulate  # noqa: E402
from tidegate.sim.model import build_model  # noqa: E402
from tidegate.sim.workloads import WORKLOADS, build  # noqa: E402

ZARR = ("anomaly", "rechunk-add", "weighted", "vorticity-files")


def digest(r) -> str:
    h = hashlib.sha256()
    for t in r.trace.tasks:
        h.update(repr((t.key, t.worker, t.thread, t.start, t.stop, t.nbytes)).encode())
    for t in r.trace.transfers:
        h.update(repr((t.key, t.source, t.dest, t.start, t.stop)).encode())
    for m in r.trace.memory:
        h.update(repr((m.time, m.worker, m.held, m.roots_in_flight)).encode())
    h.update(repr((r.peak_memory_per_worker, r.makespan, r.bytes_transferred,
                   r.messages)).encode())
    return h.hexdigest()[:16]


def shapes():
    """(label name, simulate options, plugin options) of the shapes the seed workloads
    lack (session 22): stencils (``stencil-<side>-s<seed>``) and sweeps
    (``sweep-<readers>x<bytes>``, ``weights-s<seed>``); :func:`shape_model` builds them."""
    net = dict(bandwidth="200MB/s")
    for workers, threads, seed in ((2, 1, 0), (4, 1, 7), (2, 2, 0), (4, 2, 0)):
        yield f"stencil-6000-s{seed}", dict(workers=workers, threads_per_worker=threads, **net), {}
    # under a budget: half of a 200 MB memory_limit per worker, 12 blocks
    yield ("stencil-6000-s0", dict(workers=4, threads_per_worker=2, worker_memory_limit=2e8,
                                   **net), dict(memory_limit=0.5))
    yield "stencil-12000-s3", dict(workers=8, threads_per_worker=2, **net), {}
    yield "stencil-20000-s1", dict(workers=20, threads_per_worker=4, **net), {}
    for nbytes in (100_000, 4_000_000):  # under and over policy.BROADCAST_MIN_BYTES
        yield f"sweep-300x{nbytes}", dict(workers=4, threads_per_worker=1), {}
    yield "sweep-1000x40000000", dict(workers=20, threads_per_worker=4), {}
    yield "sweep-2000x40000000", dict(workers=100, threads_per_worker=4, **net), {}
    yield "weights-s0", dict(workers=12, threads_per_worker=2, bandwidth="100MB/s"), {}


def shape_model(name: str):
    """The twin model of a :func:`shapes` configuration. Keys follow no file path (numpy's
    functions, or named): the twin breaks ties by key text."""
    import dask.array as da
    import numpy as np
    from dask import delayed

    kind, *params = name.split("-")
    if kind == "stencil":  # tests/test_stencil.py's _twin_stencil (bench/distributed.py's)
        side, seed = int(params[0]), int(params[1][1:])
        a = da.random.RandomState(seed).random((side, side), chunks=1000)
        x = a.map_overlap(np.negative, depth=1, boundary="none").std(axis=0)
        return build_model(x, sizes={"overlap-var": 24402, "var": 24402})
    if kind == "sweep":  # tests/test_sim.py's readers of one shared input
        readers, nbytes = map(int, params[0].split("x"))
        w = delayed(np.arange)(500_000, dask_key_name="make")
        outs = [delayed(operator.getitem)(w, i, dask_key_name=f"use-{i}")
                for i in range(readers)]  # fmt: skip
        return build_model(outs, None, durations={"use": 0.01, "make": 0.01},
                           sizes=lambda k: nbytes if k == "make" else 8)  # fmt: skip
    if kind == "weights":  # tests/test_annotations_twin.py's broadcast weights
        rs = da.random.RandomState(int(params[0][1:]))
        x = rs.random((2000, 1000), chunks=(10, 1000))  # 200 row blocks of 80 kB
        w = rs.random((1000, 1000), chunks=(1000, 1000))  # 8 MB, read by every product
        return build_model((x @ w).sum(axis=1), None, durations=0.01)
    raise ValueError(f"no shape {name!r}")


def configs(form: str = "all"):
    """(label name, simulate options, steps (None: a zarr graph or a shape), plugin
    options, store). ``form``: "both" is the 50 of plugin_fingerprints-twin19.json;
    "all" adds the shapes."""
    if form in ("all", "shapes"):
        if form == "all":
            yield from configs("both")
        for name, opts, popts in shapes():
            yield name, opts, None, popts, False
        return
    for store in {"both": (False, True), "today": (False,), "store": (True,)}[form]:
        tag = "store:" if store else ""
        for name in sorted(WORKLOADS):
            yield (tag + name, dict(workers=20, threads_per_worker=4, bandwidth="1GB/s"), 300, {},
                   store)
            yield (tag + name, dict(workers=100, threads_per_worker=4, bandwidth="200MB/s"), 600,
                   {}, store)
            yield (tag + name, dict(workers=20, threads_per_worker=4, bandwidth="1GB/s",
                                    worker_memory_limit=2e9), 300, dict(memory_limit=0.5), store)
        for name in ZARR:
            yield (tag + "zarr-" + name, dict(workers=4, threads_per_worker=1, bandwidth="200MB/s"),
                   None, {}, store)


def _zarr_inputs(folder: str) -> dict:
    import zarr

    from tidegate.workloads import SIDE, STEPS_PER_CHUNK

    paths = {}
    for n in ("a", "b"):
        paths[n] = os.path.join(folder, f"{n}.zarr")
        zarr.create_array(paths[n], shape=(48, SIDE, SIDE), overwrite=True,
                          chunks=(STEPS_PER_CHUNK, SIDE, SIDE), dtype="f8", compressors=None)
    return paths


def config_model(name: str, steps, store: bool, paths: dict, folder: str):
    """The twin model of one configuration of :func:`configs`: a zarr graph of the bench
    (``steps`` None), or a seed workload in the store form or as computed arrays."""
    from tidegate import workloads as zw

    base = name[len("store:"):] if store else name
    if base.split("-")[0] in ("stencil", "sweep", "weights"):
        return shape_model(base)
    if steps is None:
        return build_model(zw.build(base[len("zarr-"):], paths, folder), finalize=store)
    return build(base, steps, 190e6, store=store).model()


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--compare", help="fingerprints from another code to compare with")
    ap.add_argument("--form", choices=("all", "both", "today", "store", "shapes"),
                    default="all",
                    help="the seed graphs without a final task (today), with it (store), both "
                         "(the 50 of twin19), the stencils and sweeps (shapes), or all")
    args = ap.parse_args(argv)
    if os.environ.get("PYTHONHASHSEED") != "0":
        sys.exit("set PYTHONHASHSEED=0: fingerprints compare runs across processes")
    # A fixed folder: the zarr graphs' keys follow their paths (as bench/twin_workloads.py).
    folder = os.path.join(tempfile.gettempdir(), "tidegate-twin-zarr")
    paths = _zarr_inputs(folder)
    out = {}
    for name, opts, steps, popts, store in configs(args.form):
        model = config_model(name, steps, store, paths, folder)
        t0 = time.process_time()
        r = simulate(model, policy="tidegate", **opts, **popts)
        label = f"{name}|{opts}|{steps}|{popts}"
        out[label] = digest(r)
        print(label, out[label], len(r.trace.tasks), f"{time.process_time() - t0:.1f}s",
              flush=True)
    with open(args.out, "w") as f:
        json.dump(out, f, indent=1)
    if args.compare:
        with open(args.compare) as f:
            old = json.load(f)
        same = [k for k in old if out.get(k) == old[k]]
        print(f"{len(same)}/{len(old)} identical")
        for k in old:
            if out.get(k) != old[k]:
                print("differs:", k)
        new = [k for k in out if k not in old]
        if new:
            print(f"{len(new)} configurations not in {args.compare} (not compared)")


if __name__ == "__main__":
    main()
