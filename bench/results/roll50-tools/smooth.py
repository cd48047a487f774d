"""python smooth.py FOLDER WxT SEEDS [CAP]: tidegate / queue time and peak per build with each
task's measured duration as measured, and with its group's median instead when it exceeds
CAP (default 3) x that median (the builds' slow outliers, from a loaded machine, off):
how much of the time ratio the outliers make. PATCH=file.py exec'd."""
import collections
import glob
import os
import statistics
import sys

import cloudpickle
from dask.utils import key_split

import tidegate.policy as P  # noqa: F401
from tidegate.sim import simulate

for _p in filter(None, os.environ.get("PATCH", "").split(",")):
    exec(open(_p).read(), {"__name__": "patch"})
folder, shape = sys.argv[1], sys.argv[2]
seeds = [int(s) for s in sys.argv[3].split(",")]
cap = float(sys.argv[4]) if len(sys.argv) > 4 else 3.0
w, t = map(int, shape.split("x"))
res = collections.defaultdict(list)
for path in sorted(glob.glob(os.path.join(folder, "g*.pkl")),
                   key=lambda p: int(os.path.basename(p)[1:-4])):
    dsk, out, took, size = cloudpickle.load(open(path, "rb"))
    by = collections.defaultdict(list)
    for k in dsk:
        by[key_split(k)].append(took.get(k, 1e-3))
    med = {g: statistics.median(v) for g, v in by.items()}
    quiet = {k: min(took.get(k, 1e-3), cap * max(med[key_split(k)], 1e-4)) for k in dsk}
    for seed in seeds:
        line = []
        for nm, d in (("measured", took), ("quiet", quiet)):
            r = {}
            for pol in ("queue", "tidegate"):
                x = simulate(dsk, keys=out, workers=w, threads_per_worker=t, policy=pol,
                             sizes=lambda k: size.get(k, 0), durations=lambda k: d.get(k, 1e-3),
                             seed=seed, bandwidth=1e9, outgoing_bandwidth=None, processes=1)
                r[pol] = (x.makespan, max(x.peak_memory_per_worker))
            tr = r["tidegate"][0] / r["queue"][0]
            pr = r["tidegate"][1] / r["queue"][1]
            res[nm].append((tr, pr))
            line.append(f"{nm} time {tr:.3f} peak {pr:.2f} (queue {r['queue'][0]:.3f} s)")
        print(os.path.basename(path)[:-4], f"s{seed}", "  ".join(line), flush=True)
for nm, v in res.items():
    tm = [x[0] for x in v]
    pk = [x[1] for x in v]
    print(f"{nm:9s} n={len(v)} time med {statistics.median(tm):.3f} max {max(tm):.3f} >1.05 "
          f"{sum(x > 1.05 for x in tm)} | peak med {statistics.median(pk):.3f} max {max(pk):.2f}"
          f" >1.05 {sum(x > 1.05 for x in pk)}")
