"""(anom47's tool, wall time per run printed.) Twin anomaly over namings and sizes: queue,
then tidegate with a policy switch at each
value, in one process (same model per naming). Prints per run and the medians of the
ratios to queuing's (peak, makespan, moved).

    PYTHONPATH=src python bench/results/comb51-tools/namings_ab.py --switch COMBINE_LEVELS \
        --values 0,1 --sizes 20x200,100x1000 --namings 5 [--set NAME=V ...]
"""
from __future__ import annotations

import argparse
import json
import statistics
import time

import dask.array as da

from tidegate import policy
from tidegate.sim import simulate
from tidegate.sim import workloads as wl
from tidegate.sim.model import build_model


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--switch", required=True)
    ap.add_argument("--values", default="0,1")
    ap.add_argument("--sizes", default="20x200,20x1000,100x800,100x1000")
    ap.add_argument("--namings", type=int, default=5)
    ap.add_argument("--first", type=int, default=0)
    ap.add_argument("--workload", default="anomaly")
    ap.add_argument("--set", action="append", default=[])
    args = ap.parse_args(argv)
    for kv in args.set:
        k, v = kv.split("=")
        setattr(policy, k, type(getattr(policy, k))(float(v)))
    values = [type(getattr(policy, args.switch))(float(v)) for v in args.values.split(",")]
    for spec in args.sizes.split(","):
        workers, steps = map(int, spec.split("x"))
        ratios = {v: [] for v in values}
        for n in range(args.first, args.first + args.namings):
            suffix = "" if n == 0 else f"-n{n}"
            wl._open = lambda name, shape, chunks, s=suffix: da.from_array(
                wl.NoData(shape), chunks=chunks, name=f"open-{name}{s}")
            w = wl.build(args.workload, steps, 190e6, store=False)
            out = {}
            for label, val in [("queue", None)] + [(v, v) for v in values]:
                model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
                if val is not None:
                    setattr(policy, args.switch, val)
                t0 = time.time()
                (r,) = simulate(model, workers=workers, threads_per_worker=4,
                                policy=["queue" if val is None else "tidegate"],
                                bandwidth="1e9", record_memory=False)
                print(spec, n, label, "%.0fs wall" % (time.time() - t0), flush=True)
                out[label] = (max(r.peak_memory_per_worker) / 1e9, r.makespan,
                              r.bytes_transferred / 1e9)
            q = out["queue"]
            for v in values:
                ratios[v].append(tuple(x / y for x, y in zip(out[v], q)))
            print(spec, n, json.dumps({str(k): [round(x, 2) for x in v]
                                       for k, v in out.items()}), flush=True)
        for v, rs in ratios.items():
            cols = list(zip(*rs))
            print(spec, f"{args.switch}={v}", "peak median %.3f (%.3f-%.3f) time %.3f "
                  "(%.3f-%.3f) moved %.3f" % (
                      statistics.median(cols[0]), min(cols[0]), max(cols[0]),
                      statistics.median(cols[1]), min(cols[1]), max(cols[1]),
                      statistics.median(cols[2])), flush=True)


if __name__ == "__main__":
    main()
