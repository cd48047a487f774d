"""python peakall.py BUILD.pkl WxT SEED [NAME=V ...] [--at T]: per policy, at the instant the
largest worker reaches its peak (or at T), every worker's held bytes by group (MB, count),
its processing by group, and the sum over workers then; plus the run's largest sum.
Groups with a day index (rechunk-merge, getitem, store-map) are also split by month."""
import collections
import sys

import cloudpickle
import numpy as np
from dask.utils import key_split

import tidegate.policy as P
from tidegate.sim import simulate
from tidegate.sim import worker as simworker

args = [a for a in sys.argv[1:] if not a.startswith("--at")]
AT = [float(a.split("=")[1]) for a in sys.argv[1:] if a.startswith("--at=")]
dsk, out, took, size = cloudpickle.load(open(args[0], "rb"))
w, t = map(int, args[1].split("x"))
for kv in args[3:]:
    n, v = kv.split("=")
    setattr(P, n, type(getattr(P, n))(float(v)))
DAYS = np.arange("2000-01-01", "2002-01-01", dtype="datetime64[D]")
MONTH = (DAYS.astype("datetime64[M]").astype(int) % 12) + 1


def month_of(k):
    if isinstance(k, tuple) and len(k) > 1 and isinstance(k[1], int) and k[1] < len(DAYS):
        return int(MONTH[k[1]])
    return None


def state_of(sw):
    held = collections.defaultdict(lambda: [0.0, 0])
    months = collections.defaultdict(collections.Counter)
    for k, ts in sw.state.tasks.items():
        if ts.state == "memory":
            g = key_split(k)
            held[g][0] += (ts.nbytes or 0) / 1e6
            held[g][1] += 1
            m = month_of(k) if g in ("rechunk-merge", "getitem") else None
            if m:
                months[g][m] += 1
    proc = collections.Counter(key_split(k) for k, ts in sw.state.tasks.items()
                               if ts.state in ("executing", "ready", "constrained"))
    return sw.state.nbytes, dict(held), dict(months), dict(proc)


def run(pol):
    best = {"n": 0}
    cls = simworker.SimWorker
    handle = cls.handle_stimulus
    seen = {}

    def hs(self, *events):
        r = handle(self, *events)
        seen[self.address] = self
        now = self.clock.now
        if AT:
            if now >= AT[0] and "all" not in best:
                best.update(n=self.state.nbytes, when=now, who=self.address,
                            all={a: state_of(s) for a, s in seen.items()})
        elif self.state.nbytes > best["n"]:
            best.update(n=self.state.nbytes, when=now, who=self.address,
                        all={a: state_of(s) for a, s in seen.items()})
        return r
    cls.handle_stimulus = hs
    try:
        r = simulate(dsk, keys=out, workers=w, threads_per_worker=t, policy=pol,
                     sizes=lambda k: size.get(k, 0), durations=lambda k: took.get(k, 1e-3),
                     seed=int(args[2]), bandwidth=1e9, outgoing_bandwidth=None, processes=1)
    finally:
        cls.handle_stimulus = handle
    tot = sum(v[0] for v in best["all"].values())
    print(f"{pol}: makespan {r.makespan:.3f} peaks {[round(p / 1e6) for p in r.peak_memory_per_worker]}"
          f"  largest {best['n'] / 1e6:.0f} MB on {best['who'][-5:]} at {best['when']:.3f}s;"
          f" sum over workers then {tot / 1e6:.0f} MB")
    for a in sorted(best["all"]):
        n, held, months, proc = best["all"][a]
        print(f"  {a[-5:]} {n / 1e6:5.0f} MB  " + ", ".join(
            f"{g[:24]} {v[0]:.0f}/{v[1]}" for g, v in sorted(held.items(), key=lambda x: -x[1][0])
            if v[0] >= 1))
        for g, c in months.items():
            print(f"        {g} by month: {dict(sorted(c.items()))}")
        print(f"        processing {proc}")


for pol in ("queue", "tidegate"):
    run(pol)
