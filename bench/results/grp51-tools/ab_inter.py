"""grp49b: ab_ref.py's runs (queue, then each setting, one process, same namings) with the
namings interleaved across shapes (seed, build, shape), so a run cut short by the deadline
covers every shape alike; --skip TXT: namings already printed there are not run again.
--summ TXT...: per shape and side, peak / time median, count over 1.05x, worst (naming), from
the printed lines.

    PYTHONPATH=src python ab_inter.py --folder /tmp/grp49/grp --shapes 4x2,2x2 \\
        --seeds 0,1,2,3,4,5 --sets base TINY_ROOT_LANDS=1 [--skip runs/t-4x2.txt]
"""
import argparse
import glob
import os
import re
import statistics
import sys

import cloudpickle

from ab_ref import apply, one
import tidegate.policy as P

LINE = re.compile(r"^(\d+x\d+) (g\d+) s(\d+) (.*)$")


def parse(paths):
    rows = {}
    for p in paths:
        for ln in open(p):
            m = LINE.match(ln.strip())
            if not m:
                continue
            sides = re.findall(r"(\S+): ([\d.]+) ([\d.]+)", m.group(4))
            rows[(m.group(1), m.group(2), int(m.group(3)))] = {
                s: (float(pk), float(tm)) for s, pk, tm in sides}
    return rows


def summ(paths):
    rows = parse(paths)
    for shape in sorted({k[0] for k in rows}):
        ks = [k for k in rows if k[0] == shape]
        for s in rows[ks[0]]:
            for i, what in ((0, "peak"), (1, "time")):
                v = [(rows[k][s][i], k) for k in ks]
                worst = max(v)
                print(f"{shape} {s:20s} n={len(v)} {what} med "
                      f"{statistics.median(x for x, _ in v):.3f} >1.05 "
                      f"{sum(x > 1.05 for x, _ in v)} worst {worst[0]:.3f} "
                      f"({worst[1][1]} s{worst[1][2]})")
        sides = list(rows[ks[0]])
        if len(sides) == 2:
            a, b = sides
            for i, what in ((0, "peak"), (1, "time")):
                lo = sum(rows[k][b][i] < rows[k][a][i] for k in ks)
                hi = sum(rows[k][b][i] > rows[k][a][i] for k in ks)
                print(f"{shape} {b} vs {a}: {what} lower {lo} higher {hi} of {len(ks)}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--folder", required=True)
    ap.add_argument("--shapes", default="4x2,2x2")
    ap.add_argument("--seeds", default="0,1,2,3,4,5")
    ap.add_argument("--sets", nargs="+", required=True)
    ap.add_argument("--skip", nargs="*", default=[])
    a = ap.parse_args()
    done = parse(a.skip)
    names = sorted((os.path.basename(p)[:-4] for p in glob.glob(os.path.join(a.folder,
                   "g*.pkl"))), key=lambda n: int(n[1:]))
    saved = {n: getattr(P, n) for s in a.sets if s != "base" for kv in s.split(",")
             for n in [kv.split("=")[0]]}
    graphs = {}
    for seed in map(int, a.seeds.split(",")):
        for g in names:
            for shape in a.shapes.split(","):
                if (shape, g, seed) in done:
                    continue
                if g not in graphs:
                    with open(os.path.join(a.folder, g + ".pkl"), "rb") as f:
                        graphs[g] = cloudpickle.load(f)
                dsk, out, took, size = graphs[g]
                w, t = map(int, shape.split("x"))
                q = one(dsk, out, took, size, w, t, seed, "queue")
                res = {}
                for s in a.sets:
                    apply(s, saved)
                    res[s] = one(dsk, out, took, size, w, t, seed, "tidegate")
                apply("base", saved)
                print(f"{shape} {g} s{seed} " + "  ".join(
                    f"{s}: {r[0] / q[0]:.2f} {r[1] / q[1]:.3f}" for s, r in res.items()),
                    flush=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--summ"]:
        summ(sys.argv[2:])
    else:
        main()
