"""What the peak worker holds at its peak, by task group, for one clim-anom-store build
(grp27_twin.py's gN.pkl) per policy: keys in memory there (computed there / copied in),
their waiting dependents' groups, and the largest worker's tasks by group.

    PYTHONPATH=src python grp_held.py FOLDER/gN.pkl WxT SEED [--outgoing inf] [--policies queue,tidegate]
"""
import argparse
import collections
import os
import sys

import cloudpickle
from dask.utils import key_split

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import twin_peaks  # noqa: E402  (bench/twin_peaks.py)

sys.path.pop(0)
from tidegate.sim import simulate  # noqa: E402
import tidegate.sim.cluster as _C  # noqa: E402

_CL = []
_init = _C.SimCluster.__init__


def _keep(self, *args, **kw):
    _init(self, *args, **kw)
    _CL.append(self)


_C.SimCluster.__init__ = _keep

ap = argparse.ArgumentParser()
ap.add_argument("build"); ap.add_argument("shape"); ap.add_argument("seed", type=int)
ap.add_argument("--outgoing", type=float, default=None)
ap.add_argument("--policies", default="queue,tidegate")
ap.add_argument("--top", type=int, default=12)
ap.add_argument("--set", action="append", default=[], help="NAME=VALUE of tidegate.policy")
a = ap.parse_args()
import tidegate.policy as _P  # noqa: E402
for _kv in a.set:
    _k, _v = _kv.split("=")
    setattr(_P, _k, type(getattr(_P, _k))(float(_v)))
with open(a.build, "rb") as f:
    dsk, out, took, size = cloudpickle.load(f)
w, t = map(int, a.shape.split("x"))
for pol in a.policies.split(","):
    ran = {}

    def holdings(worker):
        mine = ran.get(worker.address, ())
        mem = []
        for ts in worker.state.tasks.values():
            if ts.state == "memory":
                st = _CL[-1].scheduler.tasks.get(ts.key) if _CL else None
                deps = st.dependents if st is not None else ts.dependents
                waiting = sorted({f"{key_split(d.key)}:{d.state}" for d in deps
                                  if d.state not in ("memory", "released", "forgotten")})
                mem.append((ts.key, ts.nbytes or 0, "here" if ts.key in mine else "copy",
                            tuple(waiting)))
        sw = _CL[-1].scheduler.workers.get(worker.address) if _CL else None
        proc = collections.Counter(key_split(t.key) for t in (sw.processing if sw else ()))
        return (mem, proc)

    with twin_peaks.watch_workers(holdings, lambda wk, key: ran.setdefault(wk.address, set()).add(key)) as snap:
        r = simulate(dsk, keys=out, workers=w, threads_per_worker=t, policy=pol,
                     sizes=lambda k: size.get(k, 0), durations=lambda k: took.get(k, 1e-3),
                     seed=a.seed, bandwidth=1e9, outgoing_bandwidth=a.outgoing,
                     processes=1, record_memory=True)
    peaks = [round(p / 1e6) for p in r.peak_memory_per_worker]
    print(f"{pol} {a.shape} s{a.seed}: makespan {r.makespan:.3f} peaks {peaks} "
          f"moved {r.bytes_transferred / 1e6:.0f}")
    for wk in sorted(snap, key=lambda x: -snap[x][0])[:2]:
        peak, at, mem, proc = snap[wk]
        by = collections.defaultdict(lambda: [0, 0.0])
        for k, b, o, waiting in mem:
            e = by[(key_split(k), o, waiting[:2])]
            e[0] += 1; e[1] += b
        print(f"  {wk[-6:]} peak {peak / 1e6:.1f} MB at {at:.3f}: {len(mem)} keys; processing "
              + ", ".join(f"{g[:20]} {n}" for g, n in proc.most_common(5)))
        for (g, o, wt), (n, b) in sorted(by.items(), key=lambda x: -x[1][1])[:a.top]:
            print(f"     {b / 1e6:7.1f} MB {n:4d} x {g[:28]:28s} {o:4s} waits for {','.join(x[:24] for x in wt)}")
