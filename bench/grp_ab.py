"""Twin A/B on grp27's saved graph builds: queue once, then any number of tidegate settings
per naming (shape, build, seed), in one process on the same namings.

Kept from the groupby helpers' copies (grp43's ab_ref.py, grp49b's ab_inter.py, copied into
bench/results/grp*-tools each session since). The namings are interleaved (seed, build,
shape) so a run cut short covers every shape alike. A setting: ``NAME=V[,NAME=V...]`` of
policy switches (set as ``policy.NAME``; the value takes the switch's type), or ``base``.

    PYTHONPATH=src python bench/grp27_twin.py --folder /tmp/grp --build 3   # the builds
    PYTHONPATH=src python bench/grp_ab.py --folder /tmp/grp --shapes 4x2,2x2 \\
        --seeds 0,1,2 --sets base TINY_ROOT_LANDS=1 [--skip OLD.txt] [--json OUT] > RUN.txt
    python bench/grp_ab.py --summ RUN.txt [MORE.txt]   # per shape and setting, from the lines

Each line: ``SHAPE BUILD sSEED SET: PEAK TIME ...``, tidegate / queue ratios of the largest
worker's peak and the makespan; the summary gives medians, counts over 1.05x, the worst
naming, and for two settings how often the second is lower or higher.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import statistics
import sys

LINE = re.compile(r"^(\d+x\d+) (g\d+) s(\d+) (.*)$")


def one(graph, workers, threads, seed, policy):
    """(peak MB of the largest worker, makespan s, MB moved) of one twin run."""
    from tidegate.sim import simulate

    dsk, out, took, size = graph
    r = simulate(dsk, keys=out, workers=workers, threads_per_worker=threads, policy=policy,
                 sizes=lambda k: size.get(k, 0), durations=lambda k: took.get(k, 1e-3),
                 seed=seed, bandwidth=1e9, outgoing_bandwidth=None, processes=1)
    return (max(r.peak_memory_per_worker) / 1e6, r.makespan,
            sum(x.nbytes for x in r.trace.transfers) / 1e6)


def apply(setting, saved):
    """Put the switches back as saved, then set ``setting``'s."""
    import tidegate.policy as P

    for n, v in saved.items():
        setattr(P, n, v)
    if setting != "base":
        for kv in setting.split(","):
            n, v = kv.split("=")
            setattr(P, n, type(getattr(P, n))(float(v)))


def parse(paths):
    """{(shape, build, seed): {setting: (peak, time)}} from printed lines."""
    rows = {}
    for p in paths:
        for ln in open(p):
            m = LINE.match(ln.strip())
            if m:
                sides = re.findall(r"(\S+): ([\d.]+) ([\d.]+)", m.group(4))
                rows[(m.group(1), m.group(2), int(m.group(3)))] = {
                    s: (float(pk), float(tm)) for s, pk, tm in sides}
    return rows


def summary(rows):
    for shape in sorted({k[0] for k in rows}):
        ks = [k for k in rows if k[0] == shape]
        sides = list(rows[ks[0]])
        for s in sides:
            for i, what in ((0, "peak"), (1, "time")):
                v = [(rows[k][s][i], k) for k in ks if s in rows[k]]
                worst = max(v)
                print(f"{shape} {s:24s} n={len(v)} {what} med "
                      f"{statistics.median(x for x, _ in v):.3f} >1.05 "
                      f"{sum(x > 1.05 for x, _ in v)} worst {worst[0]:.3f} "
                      f"({worst[1][1]} s{worst[1][2]})")
        if len(sides) == 2:
            a, b = sides
            both = [k for k in ks if a in rows[k] and b in rows[k]]
            for i, what in ((0, "peak"), (1, "time")):
                lo = sum(rows[k][b][i] < rows[k][a][i] for k in both)
                hi = sum(rows[k][b][i] > rows[k][a][i] for k in both)
                print(f"{shape} {b} vs {a}: {what} lower {lo} higher {hi} of {len(both)}")


def main():
    import cloudpickle

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--folder", required=True, help="grp27_twin.py's builds (g1.pkl ...)")
    ap.add_argument("--graphs", default="", help="builds to run (default: every g*.pkl)")
    ap.add_argument("--shapes", default="4x2,2x2")
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--sets", nargs="+", required=True)
    ap.add_argument("--skip", nargs="*", default=[], help="namings printed there: not run")
    ap.add_argument("--json", default="", help="write the ratios' rows here too")
    a = ap.parse_args()
    done = parse(a.skip)
    names = a.graphs.split(",") if a.graphs else sorted(
        (os.path.basename(p)[:-4] for p in glob.glob(os.path.join(a.folder, "g*.pkl"))),
        key=lambda n: int(n[1:]))  # fmt: skip
    saved = {kv.split("=")[0]: None for s in a.sets if s != "base" for kv in s.split(",")}
    import tidegate.policy as P

    saved = {n: getattr(P, n) for n in saved}
    graphs, rows = {}, {}
    for seed in map(int, a.seeds.split(",")):
        for g in names:
            for shape in a.shapes.split(","):
                if (shape, g, seed) in done:
                    continue
                if g not in graphs:
                    with open(os.path.join(a.folder, g + ".pkl"), "rb") as f:
                        graphs[g] = cloudpickle.load(f)
                w, t = map(int, shape.split("x"))
                q = one(graphs[g], w, t, seed, "queue")
                res = {}
                for s in a.sets:
                    apply(s, saved)
                    try:
                        r = one(graphs[g], w, t, seed, "tidegate")
                    finally:
                        apply("base", saved)
                    res[s] = (r[0] / q[0], r[1] / q[1])
                rows[(shape, g, seed)] = res
                print(f"{shape} {g} s{seed} " + "  ".join(
                    f"{s}: {pk:.2f} {tm:.3f}" for s, (pk, tm) in res.items()), flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump([dict(shape=k[0], build=k[1], seed=k[2], **v) for k, v in rows.items()],
                      f)
    if rows:
        summary(rows)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--summ"]:
        summary(parse(sys.argv[2:]))
    else:
        main()
