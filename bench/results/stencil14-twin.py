"""stencil14: bench/distributed.py's stencil in the twin, queue vs tidegate, under several
key namings (the graph is the same; only dask.order's tie-breaks between groups differ).
It replaces stencil13-twin.py (the stencil13-twin-*.json records name it): without
--slice-seconds it runs the same. --slice-seconds/--overlap-seconds: the twin's default
model gave each halo slice (getitem) 9 ms and each overlap-var 1 ms; tidegate.get
measured 0.01 ms and 8.3 ms (median, 6000^2 stencil, chunks 1000), so slicing dominated
the twin's stencil (220 x 9 ms against 36 loads of 41 ms).

    PYTHONPATH=$PWD/src python bench/results/stencil14-twin.py [--shapes 2x1,4x1,2x2,4x2]
        [--namings s0,s1,...] [--side 6000] [--out FILE.json]
        [--slice-seconds 5e-5 [--overlap-seconds 8e-3]]

Namings "sN": the random input of seed N (a different token for every key of the graph;
the keys of bench/distributed.py and of the tests follow their file's path, through the
function's token, so they are not reproducible from another checkout). Virtual times: deterministic, no
dependence on the machine's load. Sizes as stencil11-twin.py: the var chunks' real 24 kB.
"""
from __future__ import annotations

import argparse
import json
import sys

import dask.array as da
import numpy as np

from tidegate.sim import simulate
from tidegate.sim.model import build_model


def stencil(naming: str, side: int, chunk: int):
    """The stencil with keys named by ``naming`` = "sN": the random input of seed N, so a
    different token for every key (np.negative tokenizes by reference: the same in every
    checkout, unlike a lambda or a function of a file loaded by path)."""
    a = da.random.RandomState(int(naming[1:])).random((side, side), chunks=chunk)
    return a.map_overlap(np.negative, depth=1, boundary="none").std(axis=0)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shapes", default="2x1,4x1,2x2,4x2")
    ap.add_argument("--namings", default="s0,s1,s2,s3,s4,s5,s6,s7")
    ap.add_argument("--side", type=int, default=6000)
    ap.add_argument("--chunk", type=int, default=1000)
    ap.add_argument("--bandwidth", default="200MB/s")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=None)
    ap.add_argument("--slice-seconds", type=float, default=None)
    ap.add_argument("--overlap-seconds", type=float, default=8e-3)
    args = ap.parse_args(argv)
    rows = []
    durations = None
    if args.slice_seconds is not None:
        durations = {"getitem": args.slice_seconds, "overlap-var": args.overlap_seconds}
    for naming in args.namings.split(","):
        model = build_model(stencil(naming, args.side, args.chunk),
                            sizes={"overlap-var": 24402, "var": 24402},
                            durations=durations)
        for shape in args.shapes.split(","):
            w, t = map(int, shape.split("x"))
            q, g = simulate(model, workers=w, threads_per_worker=t, bandwidth=args.bandwidth,
                            policy=["queue", "tidegate"], record_memory=False, processes=1,
                            seed=args.seed)
            pq, pg = max(q.peak_memory_per_worker), max(g.peak_memory_per_worker)
            row = dict(naming=naming, shape=shape, seed=args.seed,
                       peak_q=pq, peak_tg=pg, moved_q=q.bytes_transferred,
                       moved_tg=g.bytes_transferred, makespan_q=q.makespan,
                       makespan_tg=g.makespan)
            rows.append(row)
            print(f"{naming:7s} {shape:5s} peak {pg / pq:.2f}x ({pq / 2**20:.0f}/{pg / 2**20:.0f} MiB)"
                  f"  makespan {g.makespan / q.makespan:.3f}x ({q.makespan:.2f}/{g.makespan:.2f} s)"
                  f"  moved {q.bytes_transferred / 2**20:.0f}/{g.bytes_transferred / 2**20:.0f} MiB",
                  flush=True)
    worst = max(r["makespan_tg"] / r["makespan_q"] for r in rows)
    over = max(r["peak_tg"] - r["peak_q"] for r in rows)
    print(f"worst makespan {worst:.3f}x; largest peak excess {over / 2**20:.1f} MiB")
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"command": " ".join(sys.argv), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
