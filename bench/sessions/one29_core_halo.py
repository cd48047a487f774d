"""one29 (issue 9 item 4, audit gap 5): does the thread runtime's core need the plugin's halo
passes (policy.halo_depth / passes_for_halo)? The core walks meeting plans at depth 4 only
(core._completes_consumer); the plugin walks a stencil's halo meeting at HALO_DEPTH on
multi-thread workers (halo26). This drives the core, with no threads, on map_overlap graphs
and reports, per variant, what it holds and a lock-step time proxy. Nothing here changes
core.py: the "halo" variant patches the core's meeting_plan for the run only.

Graphs:
  stencil-6 / stencil-12: ``da.random.RandomState(0).random((N*1000,)*2, chunks=1000)
      .map_overlap(np.negative, depth=1, boundary="none").std(axis=0)`` (8 MB blocks, as
      tests/test_stencil.py's twin stencil), the twin model's sizes (as that test's);
  roll: probe24's rolling(time=5, center=True).mean().max() over zarr, the builds pickled by
      ``bench/core26_drive.py dump rolling-max 3 DIR`` (measured sizes), with ``--roll DIR``.
Variants: ``base`` (the core as it is), ``halo`` (the core's meeting_plan given
halo_depth=policy.halo_depth(threads, 1): a root completing a deep (halo) meeting counts as
completing a consumer, bounded only by the core's own ``queued`` rule).

    PYTHONHASHSEED=0 PYTHONPATH=src python bench/sessions/one29_core_halo.py [--roll DIR]
        [--shapes 2xinf,4xinf,2x1e8,4x2e8] [--seeds 0,1,2] [--out F.json]

Per row: peak held MB median [min..max] over seeds (drive: tidegate.testing.drive, tasks
finished one at a time in a seeded order), lock-step ticks (every running task ends each
tick: bench/moved.py's waves) median, and how often admission asked whether a root completes
a consumer / was told yes (summed over seeds).
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import pickle
import statistics
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # bench/
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != HERE]


def stencil(n):
    import dask.array as da
    import numpy as np
    from dask._task_spec import convert_legacy_graph
    from dask.core import flatten

    from tidegate import bridge

    a = da.random.RandomState(0).random((n * 1000, n * 1000), chunks=1000)
    x = a.map_overlap(np.negative, depth=1, boundary="none").std(axis=0)
    sizes = bridge.chunk_sizes(x)
    dsk = convert_legacy_graph(dict(x.__dask_graph__()))
    plan = bridge._Plan(dsk, list(flatten(x.__dask_keys__())), {})
    g = bridge.to_taskgraph(plan.tasks, plan.outputs, plan.supplied, "dfs",
                            plan.dependencies, None, sizes)  # fmt: skip

    from tidegate.sim.model import build_model

    # the twin's sizes (tests/test_stencil.py's model: 8 MB blocks, 8 kB halo rows)
    model = build_model(x, sizes={"overlap-var": 24402, "var": 24402}).sizes

    def size(i):
        return float(model.get(g.keys[i], model.get(str(g.keys[i]), 8)))

    return [(f"stencil-{n}", g, size, None)]


def rolls(folder):
    out = []
    for path in sorted(glob.glob(os.path.join(folder, "g*.pkl"))):
        with open(path, "rb") as f:
            d = pickle.load(f)
        out.append((f"roll-{os.path.basename(path)[:-4]}", d["graph"], d["size"].__getitem__, d))
    return out


def run(graph, size, extra, threads, budget, seed, variant, lockstep):
    import tidegate.core as C
    import tidegate.core_admission as A  # (meeting_plan's caller since the core split)
    from tidegate import policy as P
    from tidegate.testing import drive

    asked = [0, 0]
    original_plan, original_completes = A.meeting_plan, C.Scheduler._completes_consumer
    if variant == "halo":
        depth = P.halo_depth(threads, 1)
        A.meeting_plan = lambda *a, **k: P.meeting_plan(*a, halo_depth=depth, **k)

    def completes(self, i, w, frees=False):
        yes = original_completes(self, i, w, frees)
        asked[0] += 1
        asked[1] += bool(yes)
        return yes

    C.Scheduler._completes_consumer = completes
    try:
        c = C.Scheduler(graph, [(threads, budget)], P.Policy())
        if extra is not None:  # the body's views and buffers (core26_drive)
            c.views[:] = extra["views"]
            c.buffer[:] = extra["buffer"]
        if lockstep:
            sys.path.append(HERE)
            from moved import waves  # (bench/moved.py's lock-step time proxy)

            return dict(ticks=waves(c, size, seed)[0])
        drive(c, seed=seed, size=size)
        return dict(peak=c.workers[0].peak_held / 1e6, roots=c.peak_roots_held,
                    asked=asked[0], yes=asked[1], spilled=c.bytes_spilled / 1e6)
    finally:
        A.meeting_plan, C.Scheduler._completes_consumer = original_plan, original_completes


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--roll", default=None)
    ap.add_argument("--stencils", default="6,12")
    ap.add_argument("--shapes", default="2xinf,4xinf,2x1e8,4x2e8")
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    graphs = []
    for n in filter(None, a.stencils.split(",")):
        graphs += stencil(int(n))
    if a.roll:
        graphs += rolls(a.roll)
    seeds = [int(s) for s in a.seeds.split(",")]
    rows = []
    for name, g, size, extra in graphs:
        for shape in a.shapes.split(","):
            threads, budget = int(shape.split("x")[0]), float(shape.split("x")[1])
            for variant in ("base", "halo"):
                runs = [run(g, size, extra, threads, budget, s, variant, False) for s in seeds]
                ticks = [run(g, size, extra, threads, budget, s, variant, True)["ticks"]
                         for s in seeds]  # fmt: skip
                peaks = [r["peak"] for r in runs]
                row = dict(graph=name, tasks=len(g), shape=shape, variant=variant,
                           peak_median=statistics.median(peaks), peak_min=min(peaks),
                           peak_max=max(peaks), ticks_median=statistics.median(ticks),
                           ticks=ticks, peaks=[round(p, 1) for p in peaks],
                           roots=[r["roots"] for r in runs],
                           asked=sum(r["asked"] for r in runs),
                           yes=sum(r["yes"] for r in runs),
                           spilled=[round(r["spilled"], 1) for r in runs])  # fmt: skip
                rows.append(row)
                print(f"{name:10s} {shape:7s} {variant:4s} peak {row['peak_median']:7.1f} "
                      f"[{row['peak_min']:.1f}..{row['peak_max']:.1f}] MB  ticks "
                      f"{row['ticks_median']} {ticks}  roots {row['roots']}  completes asked "
                      f"{row['asked']} yes {row['yes']}  spilled {row['spilled']}",
                      flush=True)  # fmt: skip
    if a.out:
        with open(a.out, "w") as f:
            json.dump(dict(argv=sys.argv, rows=rows), f, indent=1)


if __name__ == "__main__":
    main()
