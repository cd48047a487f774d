"""python decomp.py FOLDER WxT g1:0,g2:5,... [NAME=V ...]: per naming, where tidegate's time
over queuing's went (grp50): each policy's makespan, last climatology stack end, idle
thread-seconds before it (startup and middle: the load order, cause (a) and part (i)) and
after it (the last stretch, cause (b)), and the last stretch's length."""
import os
import sys

import cloudpickle

import tidegate.policy as P
from tidegate.sim import simulate

w, t = map(int, sys.argv[2].split("x"))
for kv in sys.argv[4:]:
    n, v = kv.split("=")
    setattr(P, n, type(getattr(P, n))(float(v)))


def one(dsk, out, took, size, seed, pol):
    r = simulate(dsk, keys=out, workers=w, threads_per_worker=t, policy=pol,
                 sizes=lambda k: size.get(k, 0), durations=lambda k: took.get(k, 1e-3),
                 seed=seed, bandwidth=1e9, outgoing_bandwidth=None, processes=1)
    ts = r.trace.tasks
    last = max(e.stop for e in ts if e.group.startswith("mean_agg-aggregate-stack"))
    early = 0.25
    i0 = w * t * early - sum(min(e.stop, early) - e.start for e in ts if e.start < early)
    before = w * t * last - sum(min(e.stop, last) - e.start for e in ts if e.start < last)
    after = w * t * (r.makespan - last) - sum(e.stop - max(e.start, last)
                                              for e in ts if e.stop > last)
    return r.makespan, last, i0, before - i0, after


for nm in sys.argv[3].split(","):
    g, seed = nm.split(":")
    with open(os.path.join(sys.argv[1], g + ".pkl"), "rb") as f:
        dsk, out, took, size = cloudpickle.load(f)
    q = one(dsk, out, took, size, int(seed), "queue")
    d = one(dsk, out, took, size, int(seed), "tidegate")
    print(f"{sys.argv[2]} {g} s{seed} time {d[0] / q[0]:.3f} (q {q[0]:.3f} t {d[0]:.3f}) "
          f"last stack q {q[1]:.3f} t {d[1]:.3f} | idle thread-s q/t: <0.25 s "
          f"{q[2]:.2f}/{d[2]:.2f} to last stack {q[3]:.2f}/{d[3]:.2f} after {q[4]:.2f}/"
          f"{d[4]:.2f} | stretch q {q[0] - q[1]:.3f} t {d[0] - d[1]:.3f}", flush=True)
