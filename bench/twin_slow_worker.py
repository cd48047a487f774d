"""The anomaly (``a - a.mean(axis=0)``: 12 loads of 32 MB, a tree reduction in groups of 4)
in the twin at 2 workers x 1 thread, 200 MB/s, with the loads of one reduction group (the
one the second worker starts with) ``f`` times their modelled duration: a worker running
behind, as one does on a loaded machine. The chunk-means and partial means are sized as
the LocalCluster measures them (8 MB and 16 MB: 4 time steps per chunk; the twin's own size
model says 32 MB and 8 MB). Deterministic; prints loads per worker, peak, makespan, bytes
moved for queue and tidegate per factor.

    python bench/twin_slow_worker.py [--factors 1,1.5,2,3] [--out OUT.json]

Why: on a LocalCluster 2x1 the seed anomaly's peak is set by how many of the 12 loads the
busiest worker holds (all are held until the mean is whole): 6/6 244 MiB, 8/4 305 MiB.
Its spread is this timing (bench/results/anom23-findings.txt).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _here]

from tidegate.sim import simulate  # noqa: E402
from tidegate.sim.model import build_model  # noqa: E402
from tidegate.sim.workloads import build  # noqa: E402

REAL_SIZES = {"mean_chunk": 8000328, "mean_combine-partial": 16000320}


def run(factor: float, slow=range(8, 12)) -> dict:
    w = build("anomaly", 12, 32e6, store=False)
    model = build_model(w.graph, w.keys, sizes={**(w.sizes or {}), **REAL_SIZES},
                        durations=w.durations)  # fmt: skip
    for k in model.durations:
        if type(k) is tuple and k[0].startswith("open") and k[1] in slow:
            model.durations[k] *= factor
    out = {}
    for policy, r in zip(("queue", "tidegate"),
                         simulate(model, workers=2, threads_per_worker=1,
                                  policy=["queue", "tidegate"], bandwidth=200e6)):  # fmt: skip
        loads = collections.Counter(t.worker for t in r.trace.tasks if t.group.startswith("open-"))
        out[policy] = {"loads_per_worker": sorted(loads.values(), reverse=True),
                       "peak": max(r.peak_memory_per_worker), "makespan": r.makespan,
                       "bytes_transferred": r.bytes_transferred}
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--factors", default="1,1.25,1.5,1.75,2,2.5,3,4")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    res = {}
    for f in map(float, args.factors.split(",")):
        res[f] = run(f)
        for p, v in res[f].items():
            print(f"x{f:<5} {p:9} loads/worker {v['loads_per_worker']}  peak {v['peak'] / 1e6:4.0f} MB  "
                  f"makespan {v['makespan']:.2f} s  moved {v['bytes_transferred'] / 1e6:4.0f} MB",
                  flush=True)  # fmt: skip
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"command": "python bench/twin_slow_worker.py " + " ".join(argv or sys.argv[1:]),
                       "results": res}, f, indent=1)  # fmt: skip


if __name__ == "__main__":
    main()
