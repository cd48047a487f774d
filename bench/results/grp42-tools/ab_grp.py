"""grp42: grp27_twin.py's builds A/B: per (shape, build, seed) queue once, tidegate with a
policy switch at --old and at --new, in one process on the same namings; per shape the
tidegate / queue ratios (peak of the largest worker, makespan, bytes moved): median, max,
runs over 1.0 and 1.05, and which namings moved.

    PYTHONPATH=src python ab_grp.py --folder /tmp/grp42/grp --shapes 2x2,4x1 --seeds 0,1,2 \
        --switch READER_DATA --old 0 --new 1 [--name rolling-max] [--json OUT]
"""
import argparse
import glob
import json
import os
import statistics

import cloudpickle

import tidegate.policy as P
from tidegate.sim import simulate


def one(dsk, out, took, size, w, t, seed, policy, bw, outgoing):
    r = simulate(dsk, keys=out, workers=w, threads_per_worker=t, policy=policy,
                 sizes=lambda k: size.get(k, 0), durations=lambda k: took.get(k, 1e-3),
                 seed=seed, bandwidth=bw, outgoing_bandwidth=outgoing, processes=1)
    return (max(r.peak_memory_per_worker) / 1e6, r.makespan,
            sum(x.nbytes for x in r.trace.transfers) / 1e6)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--folder", required=True)
    ap.add_argument("--graphs", default="")
    ap.add_argument("--shapes", default="2x2,4x1")
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--switch", default="READER_DATA")
    ap.add_argument("--old", default="0")
    ap.add_argument("--new", default="1")
    ap.add_argument("--bandwidth", type=float, default=1e9)
    ap.add_argument("--outgoing", type=float, default=None)
    ap.add_argument("--json", default="")
    a = ap.parse_args()
    names = a.graphs.split(",") if a.graphs else sorted(
        (os.path.basename(p)[:-4] for p in glob.glob(os.path.join(a.folder, "g*.pkl"))),
        key=lambda n: int(n[1:]))
    rows = []
    for shape in a.shapes.split(","):
        w, t = map(int, shape.split("x"))
        res = []
        for g in names:
            with open(os.path.join(a.folder, g + ".pkl"), "rb") as f:
                dsk, out, took, size = cloudpickle.load(f)
            for seed in map(int, a.seeds.split(",")):
                q = one(dsk, out, took, size, w, t, seed, "queue", a.bandwidth, a.outgoing)
                got = {}
                for label, v in (("old", a.old), ("new", a.new)):
                    cur = getattr(P, a.switch)
                    setattr(P, a.switch, float(v) if isinstance(cur, float) else int(v))
                    got[label] = one(dsk, out, took, size, w, t, seed, "tidegate",
                                     a.bandwidth, a.outgoing)
                o, n = got["old"], got["new"]
                row = dict(shape=shape, build=g, seed=seed, q=q, old=o, new=n)
                rows.append(row)
                res.append(row)
                mark = "SAME" if o == n else "moved"
                print(f"{shape} {g} s{seed} peak q {q[0]:6.1f} old {o[0]:6.1f} ({o[0] / q[0]:.2f})"
                      f" new {n[0]:6.1f} ({n[0] / q[0]:.2f})  time old {o[1] / q[1]:.3f} new "
                      f"{n[1] / q[1]:.3f}  moved q {q[2]:5.0f} old {o[2]:5.0f} new {n[2]:5.0f}"
                      f"  {mark}", flush=True)
        for label in ("old", "new"):
            pk = [r[label][0] / r["q"][0] for r in res]
            tm = [r[label][1] / r["q"][1] for r in res]
            mv = [r[label][2] / r["q"][2] for r in res]
            worst = res[pk.index(max(pk))]
            print(f"== {shape} {label} ({a.switch}={getattr(a, label)}) n={len(res)}: peak median "
                  f"{statistics.median(pk):.3f} max {max(pk):.2f} ({worst['build']} "
                  f"s{worst['seed']}) over 1.0: {sum(x > 1.0 for x in pk)} over 1.05: "
                  f"{sum(x > 1.05 for x in pk)}; time median {statistics.median(tm):.3f} max "
                  f"{max(tm):.3f} over 1.05: {sum(x > 1.05 for x in tm)}; moved median "
                  f"{statistics.median(mv):.2f}; own peak median "
                  f"{statistics.median(r[label][0] for r in res):.0f} MB", flush=True)
        same = sum(r["old"] == r["new"] for r in res)
        lower = sum(r["new"][0] < r["old"][0] for r in res)
        higher = sum(r["new"][0] > r["old"][0] for r in res)
        print(f"== {shape}: {same} of {len(res)} identical; peak lower {lower} higher {higher}",
              flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f)


if __name__ == "__main__":
    main()
