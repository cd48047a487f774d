"""stencil14: tidegate.get's stencil (the thread runtime) under two codes, interleaved:
peak held bytes (the core's books: results plus running roots' estimates), peak roots
held, wall time, per run, in fresh processes.

    python bench/results/stencil14-get.py --codes NEW/src,OLD/src [--reps 12]
        [--memory-limit none] [--out FILE.json]

The stencil: 6000^2 float64 random (seed = run number mod 3), chunks 1000 (36 blocks of
8 MB), map_overlap(np.negative, depth=1).std(axis=0), 2 threads. Peaks move by whole
blocks and follow thread timing: compare the distributions, not one run.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

CHILD = r"""
import json, sys
import dask.array as da, numpy as np, tidegate
from tidegate.local import RunStats
seed, limit = int(sys.argv[1]), sys.argv[2]
a = da.random.RandomState(seed).random((6000, 6000), chunks=1000)
x = a.map_overlap(np.negative, depth=1, boundary="none").std(axis=0)
s = RunStats()
x.compute(scheduler=tidegate.get, num_workers=2, stats=s,
          memory_limit=None if limit == "auto" else limit)
print(json.dumps(dict(peak_held=s.peak_held_bytes, roots=s.peak_roots_held, wall=s.wall_time)))
"""


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--codes", required=True, help="comma-separated src folders")
    ap.add_argument("--reps", type=int, default=12)
    ap.add_argument("--memory-limit", default="none", help='"none", "auto" or bytes')
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    codes = args.codes.split(",")
    rows = []
    for rep in range(args.reps):
        for code in codes:
            env = dict(os.environ, PYTHONPATH=code)
            out = subprocess.run([sys.executable, "-c", CHILD, str(rep % 3), args.memory_limit],
                                 env=env, capture_output=True, text=True, check=True).stdout
            rows.append(dict(code=code, rep=rep, **json.loads(out.strip().splitlines()[-1])))
            print(code, rows[-1], flush=True)
    for code in codes:
        mine = [r for r in rows if r["code"] == code]
        peaks = sorted(round(r["peak_held"] / 1e6) for r in mine)
        walls = sorted(r["wall"] for r in mine)
        print(f"{code}: peak held MB {peaks} (median {peaks[len(peaks) // 2]}); wall median "
              f"{walls[len(walls) // 2]:.2f} s ({walls[0]:.2f}-{walls[-1]:.2f})")
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"command": " ".join(sys.argv), "load": os.getloadavg(), "rows": rows}, f,
                      indent=1)


if __name__ == "__main__":
    main()
