"""python idle.py BUILD.pkl WxT SEED [--step 0.05] [--from T] [--to T] [NAME=V ...]: per
policy, per step: each worker's threads busy (mean), its roots in flight and held MB (the
books' last Memory record), and cluster-wide the tasks ready (every input done) but not
started: roots / other. A thread idle while only roots are ready = withheld; idle while
other tasks are ready elsewhere = placement / transfer; nothing ready = the graph's shape."""
import argparse
import collections

import cloudpickle
from dask.core import get_dependencies

import tidegate.policy as P
from tidegate.sim import simulate
import os  # noqa: E402
for _p in filter(None, os.environ.get("PATCH", "").split(",")):  # roll50: prototypes
    exec(open(_p).read(), {"__name__": "patch"})

ap = argparse.ArgumentParser()
ap.add_argument("build"); ap.add_argument("shape"); ap.add_argument("seed", type=int)
ap.add_argument("sets", nargs="*")
ap.add_argument("--step", type=float, default=0.05)
ap.add_argument("--frm", type=float, default=0.0)
ap.add_argument("--to", type=float, default=99.0)
ap.add_argument("--policies", default="queue,tidegate")
a = ap.parse_args()
dsk, out, took, size = cloudpickle.load(open(a.build, "rb"))
deps = {k: get_dependencies(dsk, k) for k in dsk}
w, t = map(int, a.shape.split("x"))
for kv in a.sets:
    n, v = kv.split("=")
    setattr(P, n, type(getattr(P, n))(float(v)))
for pol in a.policies.split(","):
    r = simulate(dsk, keys=out, workers=w, threads_per_worker=t, policy=pol,
                 sizes=lambda k: size.get(k, 0), durations=lambda k: took.get(k, 1e-3),
                 seed=a.seed, bandwidth=1e9, outgoing_bandwidth=None, processes=1)
    ev = {e.key: e for e in r.trace.tasks}
    byk = {str(k): k for k in dsk}
    stop = {}
    for e in r.trace.tasks:
        stop[e.key] = e.stop
    wks = sorted({e.worker for e in r.trace.tasks})
    mem = collections.defaultdict(list)
    for m in sorted(r.trace.memory, key=lambda m: m.time):
        mem[m.worker].append(m)
    # ready time: when its last input finished (0 for no inputs)
    ready = {}
    for ks, e in ev.items():
        k = byk.get(ks, ks)
        ds = deps.get(k, ())
        ready[ks] = max((stop.get(str(d), stop.get(d, 0.0)) for d in ds), default=0.0)
    print(pol, f"makespan {r.makespan:.3f}", "peaks",
          [round(p / 1e6) for p in r.peak_memory_per_worker])
    print("   t     " + "  ".join(f"{x.split('-')[-1][:4]:>4s} busy rif  MB " for x in wks)
          + " | ready roots/other")
    tt = a.frm
    idle_sum = collections.Counter()
    while tt < min(r.makespan, a.to):
        t1 = tt + a.step
        cells = []
        for wk in wks:
            b = sum(max(0.0, min(e.stop, t1) - max(e.start, tt)) for e in r.trace.tasks
                    if e.worker == wk and e.stop > tt and e.start < t1) / a.step
            last = [m for m in mem[wk] if m.time <= tt + a.step / 2]
            m = last[-1] if last else None
            cells.append(f"{b:4.1f} {m.roots_in_flight if m else 0:3d} "
                         f"{(m.held if m else 0) / 1e6:4.0f}")
        mid = tt + a.step / 2
        rr = sum(1 for ks, e in ev.items() if e.root and ready[ks] <= mid < e.start)
        ro = sum(1 for ks, e in ev.items() if not e.root and ready[ks] <= mid < e.start)
        print(f"{tt:6.2f}  " + "  ".join(cells) + f" | {rr:3d} {ro:4d}")
        tt = t1
