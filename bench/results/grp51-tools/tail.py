"""python tail.py BUILD.pkl WxT SEED T0 [NAME=V ...]: per policy, each worker's busy threads
per 0.1 s from T0 and the groups it ran after T0 (grp49: the time tails' last stretch)."""
import collections
import sys

import cloudpickle

import tidegate.policy as P
from tidegate.sim import simulate

dsk, out, took, size = cloudpickle.load(open(sys.argv[1], "rb"))
w, t = map(int, sys.argv[2].split("x"))
T0 = float(sys.argv[4])
for kv in sys.argv[5:]:
    n, v = kv.split("=")
    setattr(P, n, type(getattr(P, n))(float(v)))
for pol in ("queue", "tidegate"):
    r = simulate(dsk, keys=out, workers=w, threads_per_worker=t, policy=pol,
                 sizes=lambda k: size.get(k, 0), durations=lambda k: took.get(k, 1e-3),
                 seed=int(sys.argv[3]), bandwidth=1e9, outgoing_bandwidth=None, processes=1)
    print(pol, "makespan %.3f" % r.makespan)
    per = collections.defaultdict(collections.Counter)
    groups = collections.defaultdict(collections.Counter)
    for e in r.trace.tasks:
        wk = e.worker.split("-")[-1]
        if e.stop > T0:
            groups[wk][e.group[:22]] += 1
        b = int(max(e.start, T0) / 0.1)
        while b * 0.1 < e.stop and e.stop > T0:
            per[wk][b] += min(e.stop, (b + 1) * 0.1) - max(e.start, b * 0.1, T0)
            b += 1
    for wk in sorted(per):
        bs = sorted(per[wk])
        print(f"  {wk} busy/0.1s from {T0}:", " ".join(f"{per[wk][b] / 0.1:.1f}" for b in bs),
              "|", dict(groups[wk].most_common(5)))
    moved = sum(x.nbytes for x in r.trace.transfers if x.stop > T0) / 1e6
    print(f"  moved after {T0}: {moved:.0f} MB")
