"""python phases.py FOLDER WxT SEEDS [NAME=V ...]: per naming, tidegate's makespan over
queue's split in three: the start (the 7th load's start, past a first wave of both workers'
slots), the middle (the last load's end, less the start's delta) and the last stretch
(makespan less the last load's end); deltas in s, tidegate - queue. PATCH=file.py exec'd."""
import glob
import os
import statistics
import sys

import cloudpickle

import tidegate.policy as P
from tidegate.sim import simulate

for _p in filter(None, os.environ.get("PATCH", "").split(",")):
    exec(open(_p).read(), {"__name__": "patch"})
folder, shape, seeds = sys.argv[1], sys.argv[2], [int(s) for s in sys.argv[3].split(",")]
for kv in sys.argv[4:]:
    n, v = kv.split("=")
    setattr(P, n, type(getattr(P, n))(float(v)))
w, t = map(int, shape.split("x"))
rows = []
for path in sorted(glob.glob(os.path.join(folder, "g*.pkl")),
                   key=lambda p: int(os.path.basename(p)[1:-4])):
    dsk, out, took, size = cloudpickle.load(open(path, "rb"))
    for seed in seeds:
        got = {}
        for pol in ("queue", "tidegate"):
            r = simulate(dsk, keys=out, workers=w, threads_per_worker=t, policy=pol,
                         sizes=lambda k: size.get(k, 0), durations=lambda k: took.get(k, 1e-3),
                         seed=seed, bandwidth=1e9, outgoing_bandwidth=None, processes=1)
            loads = sorted((e for e in r.trace.tasks if e.group.startswith("open_dataset")),
                           key=lambda e: e.start)
            got[pol] = (loads[6].start, max(e.stop for e in loads), r.makespan)
        q, g = got["queue"], got["tidegate"]
        st = g[0] - q[0]
        mid = (g[1] - q[1]) - st
        last = (g[2] - g[1]) - (q[2] - q[1])
        rows.append((os.path.basename(path)[:-4], seed, g[2] / q[2], st, mid, last, q[2]))
        print(f"{rows[-1][0]:4s} s{seed} time {g[2] / q[2]:.3f}  start {st:+.3f}  middle "
              f"{mid:+.3f}  last {last:+.3f}  (queue {q[2]:.3f} s)", flush=True)
for i, nm in ((3, "start"), (4, "middle"), (5, "last stretch")):
    xs = [r[i] for r in rows]
    sl = [r[i] for r in rows if r[2] > 1.05]
    print(f"{nm:12s} median {statistics.median(xs):+.3f} s  sum {sum(xs):+.3f}  over-1.05 "
          f"namings' median {statistics.median(sl) if sl else 0:+.3f} sum {sum(sl):+.3f}")
