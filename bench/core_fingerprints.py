"""Do two versions of the thread runtime's core make the same decisions? The twin's
fingerprints (bench/sim_fingerprints.py, bench/plugin_fingerprints.py) run dask's
scheduler with or without the plugin: they never drive core.py. This drives it, with no
threads: each seed workload's graph, built as ``tidegate.get`` builds it (bridge._Plan,
bridge.to_taskgraph with the layers' chunk sizes), into a core Scheduler, tasks finished
one at a time in a seeded order (tidegate.testing.drive) with the twin's sizes; one
sha256 of the order tasks were started in per configuration.

Graphs: the twin's seven workloads at 40 steps of 190 MB, as returned and in the store
form (``s-<name>``), and bench/distributed.py's zarr graphs (``z-<name>``, tidegate.workloads
over 48 empty steps in 32 MB chunks, dfs and dask order); workers of 4 threads without a
budget, 2 threads and 4 threads under a budget, 1 thread (zarr). ``z-slice-add`` is left
out: its store target's token differs per run, so its order does too, on any code.

    PYTHONHASHSEED=0 python bench/core_fingerprints.py [--against OTHER/src]

Each code runs in its own process; about 10 seconds.
"""

from __future__ import annotations

import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _here]

import argparse  # noqa: E402
import hashlib  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402


def _graph(x, keys=None):
    """(TaskGraph plan pieces) of a collection, as tidegate.get ingests it."""
    from dask._task_spec import convert_legacy_graph
    from dask.core import flatten

    from tidegate import bridge

    sizes = bridge.chunk_sizes(x) if hasattr(x, "chunks") else {}
    dsk = convert_legacy_graph(dict(x if isinstance(x, dict) else x.__dask_graph__()))
    keys = x.__dask_keys__() if keys is None else keys
    flat = list(flatten(keys)) if isinstance(keys, list) else [keys]
    return dsk, bridge._Plan(dsk, flat, {}), sizes


def _digest(plan, dsk, sizes, order, threads, budget, seed, size_of) -> str:
    from tidegate import bridge
    from tidegate.core import Scheduler
    from tidegate.policy import Policy
    from tidegate.testing import drive

    g = bridge.to_taskgraph(plan.tasks, plan.outputs, plan.supplied, order, plan.dependencies,
                            dsk if order == "dask" else None, sizes)  # fmt: skip
    core = Scheduler(g, [(threads, budget)], Policy())
    runs, _ = drive(core, seed=seed, size=lambda i: size_of(g, i))
    started = repr([g.keys[i] for i in runs]) + f"|{core.workers[0].peak_held}"
    return hashlib.sha256(started.encode()).hexdigest()[:16]


def child() -> dict:
    import numpy as np
    import zarr

    from tidegate import workloads as zw
    from tidegate.sim.workloads import WORKLOADS, build

    out = {}
    for name in sorted(WORKLOADS):
        for store in (False, True):
            w = build(name, 40, 190e6, store=store)
            dsk, plan, sizes = _graph(w.graph, w.keys)
            model = w.model().sizes

            def twin_size(g, i, model=model):
                return float(model.get(g.keys[i], 8))

            for threads, budget in ((4, math.inf), (2, 1.2e9), (4, 2e9)):
                for seed in (0, 1):
                    label = f"{'s-' if store else ''}{name} {threads}x{budget:.3g} s{seed}"
                    out[label] = _digest(plan, dsk, sizes, "dfs", threads, budget, seed,
                                         twin_size)  # fmt: skip
    folder = os.path.join(tempfile.gettempdir(), "tidegate-core-fingerprints")
    inputs = {}
    for a in ("a", "b"):
        inputs[a] = os.path.join(folder, f"{a}.zarr")
        zarr.create_array(inputs[a], shape=(48, zw.SIDE, zw.SIDE), overwrite=True,
                          chunks=(zw.STEPS_PER_CHUNK, zw.SIDE, zw.SIDE), dtype="f8",
                          compressors=None)  # fmt: skip

    def layer_size(g, i):
        v = g.layer_size[i] if g.layer_size is not None else np.nan
        return float(v) if v > 0 else (32e6 if g.root[i] else 16e6)

    for name in zw.NAMES:
        if name == "slice-add":
            continue
        dsk, plan, sizes = _graph(zw.build(name, inputs, folder))
        for threads, budget in ((4, math.inf), (2, 2e8), (1, 1.5e8), (4, 3e8)):
            for order in ("dfs", "dask"):
                for seed in (0, 1):
                    label = f"z-{name} {threads}x{budget:.3g} {order} s{seed}"
                    out[label] = _digest(plan, dsk, sizes, order, threads, budget, seed,
                                         layer_size)  # fmt: skip
    return out


def run(src: str) -> dict:
    env = dict(os.environ, PYTHONPATH=src)
    env.setdefault("PYTHONHASHSEED", "0")
    out = subprocess.run([sys.executable, __file__, "--child"], env=env, check=True,
                         capture_output=True, text=True)  # fmt: skip
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--against", default=None, metavar="SRC")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child()))
        return
    mine = run(str(Path(__file__).resolve().parents[1] / "src"))
    if not args.against:
        for k, v in mine.items():
            print(f"{v}  {k}")
        print(f"{len(mine)} runs")
        return
    theirs = run(args.against)
    same = 0
    for k, v in mine.items():
        ok = theirs.get(k) == v
        same += ok
        print(f"{'same' if ok else 'DIFF'}  {v}  {theirs.get(k)}  {k}")
    print(f"{same} of {len(mine)} identical")
    sys.exit(0 if same == len(mine) else 1)


if __name__ == "__main__":
    main()
