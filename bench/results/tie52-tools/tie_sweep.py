"""Sweep of rev51m's tie graph: pieces n, load size (MB), shapes, seeds; tidegate with
PARTNER_BACKLOG at OLD and NEW against queue. Prints per cell time / peak / moved ratios
to queue's and the counts of runs over 1.05x time, over queue's peak, over its bytes.
usage: tie_sweep.py [--ns 8,16,32] [--sizes 50,100,200] [--shapes 2x2,4x2] [--seeds 2]
                    [--old 0] [--new 4]"""
import argparse
import os
import statistics
import sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tidegate.policy as P
from tie_probe import run

ap = argparse.ArgumentParser()
ap.add_argument("--ns", default="8,16,32")
ap.add_argument("--sizes", default="50,100,200")
ap.add_argument("--shapes", default="2x2,4x2,8x2,2x4,4x4,8x4")
ap.add_argument("--seeds", type=int, default=2)
ap.add_argument("--old", type=int, default=0)
ap.add_argument("--new", type=int, default=4)
a = ap.parse_args()
tot = {"old": [0, 0, 0, 0], "new": [0, 0, 0, 0]}
print("shape n MB | old time peak moved | new time peak moved (ratios to queue)")
for shape in a.shapes.split(","):
    for n in map(int, a.ns.split(",")):
        for mb in map(float, a.sizes.split(",")):
            row = {"old": [], "new": []}
            for seed in range(a.seeds):
                q = run(n, shape, "queue", seed, mb * 1e6)
                qp = max(q.peak_memory_per_worker)
                for side, v in (("old", a.old), ("new", a.new)):
                    P.PARTNER_BACKLOG = v
                    r = run(n, shape, "tidegate", seed, mb * 1e6)
                    t = r.makespan / q.makespan
                    p = max(r.peak_memory_per_worker) / qp
                    m = r.bytes_transferred / max(q.bytes_transferred, 1)
                    row[side].append((t, p, m))
                    c = tot[side]
                    c[0] += 1
                    c[1] += t > 1.05
                    c[2] += p > 1.0001
                    c[3] += r.bytes_transferred > q.bytes_transferred
            P.PARTNER_BACKLOG = a.new
            f = lambda side: " ".join(f"{statistics.median(x[i] for x in row[side]):.3f}"
                                      for i in range(3))
            same = "SAME" if row["old"] == row["new"] else "moved"
            print(f"{shape} {n:3d} {mb:4.0f} | {f('old')} | {f('new')} {same}")
for side in ("old", "new"):
    c = tot[side]
    print(f"{side}: runs {c[0]}, over 1.05x time {c[1]}, over peak {c[2]}, over bytes {c[3]}")
