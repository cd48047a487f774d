"""grp43: ab_grp.py with any number of tidegate settings per naming (queue once, then each
setting; same namings, one process). A setting: NAME=V[,NAME=V...]; "base" = as is.

    PYTHONPATH=src python ab_multi.py --folder /tmp/grp43/grp --shapes 2x2 --seeds 0,1,2 \\
        --sets "BACKLOG_FLIGHT=0" "BACKLOG_FLIGHT=1" --json OUT
"""
import argparse
import glob
import json
import os
import statistics

import cloudpickle

import tidegate.policy as P
from tidegate.sim import simulate


def one(dsk, out, took, size, w, t, seed, policy):
    r = simulate(dsk, keys=out, workers=w, threads_per_worker=t, policy=policy,
                 sizes=lambda k: size.get(k, 0), durations=lambda k: took.get(k, 1e-3),
                 seed=seed, bandwidth=1e9, outgoing_bandwidth=None, processes=1)
    return (max(r.peak_memory_per_worker) / 1e6, r.makespan,
            sum(x.nbytes for x in r.trace.transfers) / 1e6)


def apply(setting, saved):
    for n, v in saved.items():
        setattr(P, n, v)
    if setting == "base":
        return
    for kv in setting.split(","):
        n, v = kv.split("=")
        cur = getattr(P, n)
        setattr(P, n, type(cur)(float(v)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--folder", required=True)
    ap.add_argument("--graphs", default="")
    ap.add_argument("--shapes", default="2x2")
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--sets", nargs="+", required=True)
    ap.add_argument("--json", default="")
    ap.add_argument("--ref", default="", help="JSON rows (shape, build, seed, q, NAME...): "
                    "take queue's and the ref's settings from it, run only --sets")
    a = ap.parse_args()
    names = a.graphs.split(",") if a.graphs else sorted(
        (os.path.basename(p)[:-4] for p in glob.glob(os.path.join(a.folder, "g*.pkl"))),
        key=lambda n: int(n[1:]))
    saved = {n: getattr(P, n) for s in a.sets if s != "base" for kv in s.split(",")
             for n in [kv.split("=")[0]]}
    rows = []
    ref = {}
    if a.ref:
        for r in json.load(open(a.ref)):
            ref[(r["shape"], r["build"], r["seed"])] = r
    for shape in a.shapes.split(","):
        w, t = map(int, shape.split("x"))
        for g in names:
            with open(os.path.join(a.folder, g + ".pkl"), "rb") as f:
                dsk, out, took, size = cloudpickle.load(f)
            for seed in map(int, a.seeds.split(",")):
                if (shape, g, seed) in ref:
                    row = dict(ref[(shape, g, seed)])
                else:
                    row = dict(shape=shape, build=g, seed=seed,
                               q=one(dsk, out, took, size, w, t, seed, "queue"))
                for s in a.sets:
                    apply(s, saved)
                    row[s] = one(dsk, out, took, size, w, t, seed, "tidegate")
                apply("base", saved)
                rows.append(row)
                print(f"{shape} {g} s{seed} " + "  ".join(
                    f"{s}: {row[s][0] / row['q'][0]:.2f} {row[s][1] / row['q'][1]:.3f}"
                    for s in row if s not in ("shape", "build", "seed", "q")), flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f)
    summary(rows, [k for k in rows[0] if k not in ("shape", "build", "seed", "q")])


def summary(rows, sets):
    for shape in sorted({r["shape"] for r in rows}):
        rs = [r for r in rows if r["shape"] == shape]
        for s in sets:
            pk = [r[s][0] / r["q"][0] for r in rs]
            tm = [r[s][1] / r["q"][1] for r in rs]
            mv = [r[s][2] / r["q"][2] for r in rs]
            wk = rs[pk.index(max(pk))]
            print(f"{shape} {s:40s} n={len(rs)} peak med {statistics.median(pk):.3f} max "
                  f"{max(pk):.2f} ({wk['build']} s{wk['seed']}) >1.0 {sum(x > 1 for x in pk)}"
                  f" >1.05 {sum(x > 1.05 for x in pk)} | time med {statistics.median(tm):.3f}"
                  f" max {max(tm):.3f} >1.05 {sum(x > 1.05 for x in tm)} | moved "
                  f"{statistics.median(mv):.2f}")


if __name__ == "__main__":
    import sys
    if sys.argv[1:2] == ["--summ"]:
        rows = [r for f in sys.argv[2:] for r in json.load(open(f))]
        sets = [k for k in rows[0] if k not in ("shape", "build", "seed", "q")]
        summary(rows, sets)
    else:
        main()
