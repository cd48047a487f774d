"""python wtl.py BUILD.pkl WxT SEED WORKER T0 T1 [--policy P] [NAME=V ...]: one worker's
tasks (thread, start-stop, group(index)) between T0 and T1, and the gaps >= 5 ms per thread."""
import argparse
import ast

import cloudpickle
from dask.utils import key_split

import tidegate.policy as P
from tidegate.sim import simulate
import os  # noqa: E402
for _p in filter(None, os.environ.get("PATCH", "").split(",")):  # roll50: prototypes
    exec(open(_p).read(), {"__name__": "patch"})

ap = argparse.ArgumentParser()
ap.add_argument("build"); ap.add_argument("shape"); ap.add_argument("seed", type=int)
ap.add_argument("worker", type=int); ap.add_argument("t0", type=float)
ap.add_argument("t1", type=float); ap.add_argument("sets", nargs="*")
ap.add_argument("--policy", default="tidegate")
a = ap.parse_args()
dsk, out, took, size = cloudpickle.load(open(a.build, "rb"))
w, t = map(int, a.shape.split("x"))
for kv in a.sets:
    n, v = kv.split("=")
    setattr(P, n, type(getattr(P, n))(float(v)))
r = simulate(dsk, keys=out, workers=w, threads_per_worker=t, policy=a.policy,
             sizes=lambda k: size.get(k, 0), durations=lambda k: took.get(k, 1e-3),
             seed=a.seed, bandwidth=1e9, outgoing_bandwidth=None, processes=1)
wks = sorted({e.worker for e in r.trace.tasks})
wk = wks[a.worker]


def short(k):
    try:
        kk = ast.literal_eval(k)
    except (ValueError, SyntaxError):
        kk = k
    idx = kk[1:] if isinstance(kk, tuple) else ()
    return key_split(kk)[:22] + str(tuple(idx)).replace(" ", "")


ev = sorted((e for e in r.trace.tasks if e.worker == wk), key=lambda e: e.start)
print(a.policy, wk, f"makespan {r.makespan:.3f}")
for e in ev:
    if e.stop >= a.t0 and e.start <= a.t1:
        print(f"  t{e.thread} {e.start:.3f}-{e.stop:.3f} {short(e.key)}")
for th in sorted({e.thread for e in ev}):
    end = 0.0
    gaps = []
    for e in (x for x in ev if x.thread == th):
        if e.start - end >= 0.005 and e.start >= a.t0 and end <= a.t1:
            gaps.append((round(end, 3), round(e.start, 3)))
        end = max(end, e.stop)
    print(f"  thread {th} gaps >= 5 ms:", gaps)
tin = [x for x in r.trace.transfers if x.dest == wk and a.t0 <= x.stop <= a.t1]
print("  copies in:", [(short(x.key), round(x.start, 3), round(x.stop, 3)) for x in tin][:30])
