"""Paired A/B in one process (anom31): wall29_small's cells, tidegate with policy switches at
OLD and NEW values, queue alongside, over namings x seeds. The seed-* workloads' store tokens
change per process, so base and branch runs in two processes differ for no reason.

    python ab.py --only W1,W2 --shapes 2x2 --switch HANDLE_PLAN --old 0 --new 1
        [--switch A,B --old 0,0 --new 1,2] [--patch FILE.py] [-v]
Reads /tmp/one33/bench (a copy of bench/) and --measured (a copy of wall24-measured.json).
"""
import argparse
import math
import statistics
import sys
from pathlib import Path

ap = argparse.ArgumentParser()
ap.add_argument("--only", default="seed-anomaly")
ap.add_argument("--shapes", default="2x2,2x1,4x1")
ap.add_argument("--lags", default="0.002,0.01")
ap.add_argument("--namings", type=int, default=3)
ap.add_argument("--seeds", type=int, default=3)
ap.add_argument("--switch", default="HANDLE_PLAN")
ap.add_argument("--old", default="0")
ap.add_argument("--new", default="1")
ap.add_argument("--measured", default="/tmp/one33/measured.json")
ap.add_argument("-v", action="store_true")
ap.add_argument("--outgoing", type=float, default=200e6)
ap.add_argument("--patch", action="append", default=[])
a = ap.parse_args()
for _p in a.patch:
    exec(open(_p).read())
sys.path.insert(0, "/tmp/one33/bench")
import wall24_twin as W  # noqa: E402
from tidegate.sim import simulate  # noqa: E402
import tidegate.policy as P  # noqa: E402


def renamed(model, n):
    def new(k):
        return (f"{k[0]}-n{n}",) + k[1:] if isinstance(k, tuple) else f"{k}-n{n}"
    ren = {k: new(k) for k in model.dsk}
    dsk = {ren[k]: v.substitute(ren, key=ren[k]) for k, v in model.dsk.items()}
    return (dsk, [ren[k] for k in model.keys], {ren[k]: v for k, v in model.sizes.items()},
            {ren[k]: v for k, v in model.durations.items()})


def med(xs):
    xs = sorted(xs)
    return f"{statistics.median(xs):.3f} [{xs[0]:.3f}-{xs[-1]:.3f}]"


def mb(r):
    return f"{r.makespan:.4f} {max(r.peak_memory_per_worker) / 1e6:.0f}"


bd = W._bench()
bd._INPUTS["steps"] = 48
for name in a.only.split(","):
    model = W.model_of(bd, name, 48, 3, Path(a.measured))
    graphs = [renamed(model, n) if n else None for n in range(a.namings)]
    for lag in map(float, a.lags.split(",")):
        for shape in a.shapes.split(","):
            w, t = map(int, shape.split("x"))
            rows = {"old": [], "new": []}
            same = 0
            for n, g in enumerate(graphs):
                for seed in range(a.seeds):
                    kw = dict(workers=w, threads_per_worker=t, bandwidth=200e6,
                              outgoing_bandwidth=a.outgoing, latency=0.001, thread_lag=lag,
                              seed=seed, record_memory=False, processes=1)

                    def run(pol):
                        if g is None:
                            return simulate(model, policy=pol, **kw)
                        return simulate(g[0], keys=g[1], sizes=g[2], durations=g[3],
                                        policy=pol, **kw)
                    q = run("queue")
                    res = {}
                    for which in ("old", "new"):
                        for sw, v in zip(a.switch.split(","), getattr(a, which).split(",")):
                            setattr(P, sw, type(getattr(P, sw))(v))
                        d = run("tidegate")
                        res[which] = d
                        qb = q.bytes_transferred
                        rows[which].append((
                            d.makespan / q.makespan,
                            max(d.peak_memory_per_worker) / max(q.peak_memory_per_worker),
                            d.bytes_transferred / qb if qb else 1.0))
                    o, nw = res["old"], res["new"]
                    same += (o.makespan, o.peak_memory_per_worker, o.bytes_transferred) == \
                        (nw.makespan, nw.peak_memory_per_worker, nw.bytes_transferred)
                    if a.v:
                        print(f"   n{n} s{seed} q {mb(q)} | old {mb(o)} "
                              f"{o.bytes_transferred / 1e6:.0f} | new {mb(nw)} "
                              f"{nw.bytes_transferred / 1e6:.0f}")
            n = len(rows["old"])
            tag = "SAME" if same == n else f"moved {n - same}/{n}"
            print(f"{name} {shape} lag{lag * 1e3:g} {tag}")
            for which in ("old", "new"):
                r = rows[which]
                print(f"    {which}: time {med([x[0] for x in r])} peak "
                      f"{med([x[1] for x in r])} moved {med([x[2] for x in r])}  over: peak "
                      f"{sum(x[1] > 1.05 for x in r)} time {sum(x[0] > 1.05 for x in r)} "
                      f"bytes {sum(x[2] > 1.0001 for x in r)}", flush=True)
