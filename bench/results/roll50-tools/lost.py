"""python lost.py BUILD.pkl WxT SEED [NAME=V ...] [--policies ...]: per policy, idle
thread-seconds split by what was ready then (cluster-wide; 5 ms steps): roots only ready
(withheld / not yet asked), other tasks ready (placement, transfers, a worker's queue), or
nothing ready (the graph's shape); and in four time quarters of the run (start, middle,
last stretch)."""
import argparse
import bisect

import cloudpickle
from dask.core import get_dependencies

import tidegate.policy as P
from tidegate.sim import simulate
import os  # noqa: E402
for _p in filter(None, os.environ.get("PATCH", "").split(",")):  # roll50: prototypes
    exec(open(_p).read(), {"__name__": "patch"})


def run(dsk, out, took, size, w, t, seed, pol, deps):
    r = simulate(dsk, keys=out, workers=w, threads_per_worker=t, policy=pol,
                 sizes=lambda k: size.get(k, 0), durations=lambda k: took.get(k, 1e-3),
                 seed=seed, bandwidth=1e9, outgoing_bandwidth=None, processes=1)
    stop = {e.key: e.stop for e in r.trace.tasks}
    byk = {str(k): k for k in dsk}
    ready, start, roots = [], [], []
    for e in r.trace.tasks:
        ds = deps.get(byk.get(e.key, e.key), ())
        ready.append(max((stop.get(str(d), 0.0) for d in ds), default=0.0))
        start.append(e.start)
        roots.append(e.root)
    step = 0.005
    n = int(r.makespan / step) + 1
    busy = [0.0] * n
    for e in r.trace.tasks:
        b = int(e.start / step)
        while b < n and b * step < e.stop:
            busy[b] += min(e.stop, (b + 1) * step) - max(e.start, b * step)
            b += 1
    out_ = {"roots": [0.0] * 4, "other": [0.0] * 4, "none": [0.0] * 4}
    for b in range(n):
        mid = (b + 0.5) * step
        if mid > r.makespan:
            break
        idle = w * t * step - busy[b]
        q = min(3, int(4 * mid / r.makespan))
        ro = any(rd <= mid < s and rt for rd, s, rt in zip(ready, start, roots))
        ot = any(rd <= mid < s and not rt for rd, s, rt in zip(ready, start, roots))
        out_["other" if ot else "roots" if ro else "none"][q] += idle
    return r.makespan, out_


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build"); ap.add_argument("shape"); ap.add_argument("seed", type=int)
    ap.add_argument("sets", nargs="*")
    ap.add_argument("--policies", default="queue,tidegate")
    a = ap.parse_args()
    dsk, out, took, size = cloudpickle.load(open(a.build, "rb"))
    deps = {k: get_dependencies(dsk, k) for k in dsk}
    w, t = map(int, a.shape.split("x"))
    for kv in a.sets:
        nm, v = kv.split("=")
        setattr(P, nm, type(getattr(P, nm))(float(v)))
    for pol in a.policies.split(","):
        mk, o = run(dsk, out, took, size, w, t, a.seed, pol, deps)
        print(f"{pol:9s} makespan {mk:.3f} idle thread-s: " + "  ".join(
            f"{k} {sum(v):.3f} [{' '.join(f'{x:.3f}' for x in v)}]" for k, v in o.items()))


if __name__ == "__main__":
    main()
