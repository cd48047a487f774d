"""python idle.py BUILD.pkl WxT SEED [NAME=V ...]: where tidegate's makespan over queuing's
went (grp50): per policy, idle threads (of W x T) per 0.1 s, the last climatology stack's
end, and the idle thread-seconds before and after it; tidegate's cumulative idle excess."""
import sys

import cloudpickle

import tidegate.policy as P
from tidegate.sim import simulate

dsk, out, took, size = cloudpickle.load(open(sys.argv[1], "rb"))
w, t = map(int, sys.argv[2].split("x"))
for kv in sys.argv[4:]:
    n, v = kv.split("=")
    setattr(P, n, type(getattr(P, n))(float(v)))
B = 0.1
res = {}
for pol in ("queue", "tidegate"):
    r = simulate(dsk, keys=out, workers=w, threads_per_worker=t, policy=pol,
                 sizes=lambda k: size.get(k, 0), durations=lambda k: took.get(k, 1e-3),
                 seed=int(sys.argv[3]), bandwidth=1e9, outgoing_bandwidth=None, processes=1)
    busy = [0.0] * (int(r.makespan / B) + 2)
    for e in r.trace.tasks:
        b = int(e.start / B)
        while b * B < e.stop:
            busy[b] += min(e.stop, (b + 1) * B) - max(e.start, b * B)
            b += 1
    last = max(e.stop for e in r.trace.tasks if e.group.startswith("mean_agg-aggregate-stack"))
    tot = sum(e.stop - e.start for e in r.trace.tasks)
    before = w * t * last - sum(min(e.stop, last) - e.start for e in r.trace.tasks
                                if e.start < last)
    after = w * t * (r.makespan - last) - sum(e.stop - max(e.start, last)
                                              for e in r.trace.tasks if e.stop > last)
    res[pol] = (r.makespan, busy, last, tot, before, after)
    print(f"{pol:8s} makespan {r.makespan:.3f} busy {tot:.3f} s last stack {last:.3f} "
          f"idle thread-s before it {before:.3f} after {after:.3f}")
n = max(len(v[1]) for v in res.values())
cum = 0.0
row = []
for b in range(n):
    iq = w * t - res["queue"][1][b] / B if b * B < res["queue"][0] else 0
    it = w * t - res["tidegate"][1][b] / B if b * B < res["tidegate"][0] else 0
    row.append(f"{iq:.1f}/{it:.1f}")
print("idle threads per 0.1 s (queue/tidegate):", " ".join(row))
