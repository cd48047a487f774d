"""build() workload NAME over namings (the wl._open suffix, comb51's namings_ab.py) x seeds:
queue vs tidegate with switches OLD and NEW (anom51's cells.py, namings added).

    PYTHONPATH=src python cells_n.py --name weighted --steps 200 --shapes 20x4 --namings 5 \
        [--seeds 1] [--store 1] [--old X=0 --new X=1] [--patch FILE.py] [-v]
"""
import argparse
import statistics
import time

import dask.array as da

from tidegate import policy
from tidegate.sim import simulate
from tidegate.sim import workloads as wl

ap = argparse.ArgumentParser()
ap.add_argument("--name", default="weighted")
ap.add_argument("--steps", default="200")
ap.add_argument("--shapes", default="20x4")
ap.add_argument("--chunk", type=float, default=190e6)
ap.add_argument("--seeds", type=int, default=1)
ap.add_argument("--namings", type=int, default=3)
ap.add_argument("--first", type=int, default=0)
ap.add_argument("--store", type=int, default=1)
ap.add_argument("--old", action="append", default=[])
ap.add_argument("--new", action="append", default=[])
ap.add_argument("--patch", action="append", default=[])
ap.add_argument("--kw", default="{}")
ap.add_argument("-v", action="store_true")
a = ap.parse_args()
for p in a.patch:
    exec(open(p).read(), {"__name__": "patch"})
kw = eval(a.kw)


def sets(xs):
    return [(k, eval(v)) for k, v in (x.split("=") for x in xs)]


for steps in map(int, a.steps.split(",")):
    for shape in a.shapes.split(","):
        w, t = map(int, shape.split("x"))
        rows = {"old": [], "new": []}
        for n in range(a.first, a.first + a.namings):
            suffix = "" if n == 0 else f"-n{n}"
            wl._open = lambda name, shp, chunks, s=suffix: da.from_array(
                wl.NoData(shp), chunks=chunks, name=f"open-{name}{s}")
            model = wl.build(a.name, steps, a.chunk, store=bool(a.store)).model()
            for seed in range(a.seeds):
                t0 = time.time()
                q, = simulate(model, workers=w, threads_per_worker=t, seed=seed,
                              policy=["queue"], record_memory=False, processes=1, **kw)
                res = {}
                for side, sw in (("old", sets(a.old)), ("new", sets(a.new))):
                    if side == "new" and not a.new:
                        res["new"] = res["old"]
                        rows["new"].append(rows["old"][-1])
                        continue
                    saved = [(k, getattr(policy, k)) for k, _ in sw]
                    for k, v in sw:
                        setattr(policy, k, v)
                    try:
                        d, = simulate(model, workers=w, threads_per_worker=t, seed=seed,
                                      policy=["tidegate"], record_memory=False, processes=1,
                                      **kw)
                    finally:
                        for k, v in saved:
                            setattr(policy, k, v)
                    res[side] = d
                    rows[side].append((d.makespan / q.makespan,
                                       max(d.peak_memory_per_worker)
                                       / max(q.peak_memory_per_worker),
                                       d.bytes_transferred / max(q.bytes_transferred, 1)))
                if a.v:
                    print(f"  {a.name} {steps} {shape} n{n} s{seed}: queue {q.makespan:.2f}s "
                          f"{max(q.peak_memory_per_worker)/1e9:.3f}GB "
                          f"{q.bytes_transferred/1e9:.2f}GB | old " +
                          "%.3f/%.3f/%.2f" % rows["old"][-1] + " new " +
                          "%.3f/%.3f/%.2f" % rows["new"][-1] +
                          f" ({time.time() - t0:.0f}s wall)", flush=True)
        o, nw = rows["old"], rows["new"]
        same = "SAME" if o == nw else "moved"

        def f(v):
            return "time %.3f [%.3f-%.3f] peak %.3f [%.3f] bytes %.2f over1.05t %d" % (
                statistics.median(r[0] for r in v), min(r[0] for r in v),
                max(r[0] for r in v), statistics.median(r[1] for r in v),
                max(r[1] for r in v), statistics.median(r[2] for r in v),
                sum(r[0] > 1.05 for r in v))
        print(f"{a.name} {steps} {shape} {same}: old {f(o)} | new {f(nw)}", flush=True)
