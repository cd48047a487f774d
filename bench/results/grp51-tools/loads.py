"""python loads.py BUILD.pkl WxT SEED [NAME=V ...]: queue's and tidegate's root loads (start,
stop, worker), each policy's threads busy per 0.1 s, and the makespan (grp49: time tails)."""
import collections
import sys

import cloudpickle

import tidegate.policy as P
from tidegate.sim import simulate

dsk, out, took, size = cloudpickle.load(open(sys.argv[1], "rb"))
w, t = map(int, sys.argv[2].split("x"))
for kv in sys.argv[4:]:
    n, v = kv.split("=")
    setattr(P, n, type(getattr(P, n))(float(v)))
for pol in ("queue", "tidegate"):
    r = simulate(dsk, keys=out, workers=w, threads_per_worker=t, policy=pol,
                 sizes=lambda k: size.get(k, 0), durations=lambda k: took.get(k, 1e-3),
                 seed=int(sys.argv[3]), bandwidth=1e9, outgoing_bandwidth=None, processes=1)
    ev = sorted(r.trace.tasks, key=lambda e: e.start)
    loads = [e for e in ev if e.group.startswith("open_dataset")]
    print(pol, "makespan %.3f" % r.makespan, "peaks", [round(p / 1e6) for p in r.peak_memory_per_worker])
    print("  loads:", " ".join(f"{e.worker.split('-')[-1][:2]}@{e.start:.2f}-{e.stop:.2f}"
                               for e in loads))
    busy = collections.Counter()
    for e in ev:
        b = int(e.start / 0.1)
        while b * 0.1 < e.stop:
            busy[b] += min(e.stop, (b + 1) * 0.1) - max(e.start, b * 0.1)
            b += 1
    print("  threads busy per 0.1 s:", " ".join(f"{busy[b] / 0.1:.1f}" for b in range(max(busy) + 1)))
    last = ev[-1]
    tail = sorted(ev, key=lambda e: -e.stop)[:6]
    print("  last ends:", [(e.group[:20], e.worker.split('-')[-1][:2], round(e.start, 3), round(e.stop, 3)) for e in tail])
