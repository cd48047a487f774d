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
without it, as recorded in plugin_fingerprints-114059e.json. ``--form`` picks one half.
Runs with PYTHONHASHSEED=0 (set it in the environment); about two minutes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
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


def configs(form: str = "both"):
    """(label name, simulate options, steps (None: a zarr graph), plugin options, store)."""
    for store in {"both": (False, True), "today": (False,), "store": (True,)}[form]:
        tag = "store:" if store else ""
        for name in sorted(WORKLOADS):
            yield tag + name, dict(workers=20, threads_per_worker=4, bandwidth="1GB/s"), 300, {}, store
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
    if steps is None:
        return build_model(zw.build(base[len("zarr-"):], paths, folder), finalize=store)
    if store:
        return build(base, steps, 190e6, store=True).model()
    w = build(name, steps, 190e6, store=False)
    return build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--compare", help="fingerprints from another code to compare with")
    ap.add_argument("--form", choices=("both", "today", "store"), default="both",
                    help="the graphs without a final task (today), with it (store), or both")
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
