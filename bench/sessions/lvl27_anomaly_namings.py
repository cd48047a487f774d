"""The twin anomaly over several namings (the loads' array names, hence every token and
dask.order's ties) and sizes: tidegate's (and queuing's) peak GB per worker, makespan s,
moved GB per naming, then the median of the ratios to queuing's (lvl27-findings.txt).

    PYTHONPATH=src python bench/sessions/lvl27_anomaly_namings.py [--policies queue,tidegate]
        [--sizes 20x200,100x1000] [--namings 5] [--workload anomaly]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys

_here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # bench/
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _here]

import dask.array as da  # noqa: E402

from tidegate.sim import simulate  # noqa: E402
from tidegate.sim import workloads as wl  # noqa: E402
from tidegate.sim.model import build_model  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--policies", default="queue,tidegate")
    ap.add_argument("--sizes", default="20x200,20x240,20x1000,100x800,100x1000,100x1200")
    ap.add_argument("--namings", type=int, default=5)
    ap.add_argument("--workload", default="anomaly")
    args = ap.parse_args(argv)
    pol = args.policies.split(",")
    for spec in args.sizes.split(","):
        workers, steps = map(int, spec.split("x"))
        ratios = {p: [] for p in pol}
        for n in range(args.namings):
            suffix = "" if n == 0 else f"-n{n}"
            wl._open = lambda name, shape, chunks, s=suffix: da.from_array(
                wl.NoData(shape), chunks=chunks, name=f"open-{name}{s}")
            w = wl.build(args.workload, steps, 190e6, store=False)
            model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
            rs = simulate(model, workers=workers, threads_per_worker=4, policy=pol,
                          bandwidth="1e9", record_memory=False)
            out = {p: (max(r.peak_memory_per_worker) / 1e9, r.makespan,
                       r.bytes_transferred / 1e9) for p, r in zip(pol, rs)}
            q = out.get("queue")
            for p, v in out.items():
                if q:
                    ratios[p].append(tuple(x / y if y else float("nan") for x, y in zip(v, q)))
            print(spec, n, json.dumps({p: [round(x, 2) for x in v] for p, v in out.items()}),
                  flush=True)
        for p, rs in ratios.items():
            if p == "queue" or not rs:
                continue
            cols = list(zip(*rs))
            print(spec, p, "vs queue: peak median %.3f (%.3f-%.3f), time median %.3f "
                  "(%.3f-%.3f), moved median %.3f" % (
                      statistics.median(cols[0]), min(cols[0]), max(cols[0]),
                      statistics.median(cols[1]), min(cols[1]), max(cols[1]),
                      statistics.median(cols[2])), flush=True)


if __name__ == "__main__":
    main()
