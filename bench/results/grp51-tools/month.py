"""python month.py BUILD.pkl WxT SEED MONTHS [NAME=V ...]: per policy, each climatology
stack (worker, stop), and for each month in MONTHS (1-12, comma list): where and when its
data days (rechunk-merge), clim day slices (getitem) and stores (store-map) ran, and the day
slices' copies (source -> dest, when)."""
import ast
import collections
import sys

import cloudpickle
import numpy as np

import tidegate.policy as P
from tidegate.sim import simulate

dsk, out, took, size = cloudpickle.load(open(sys.argv[1], "rb"))
w, t = map(int, sys.argv[2].split("x"))
MONTHS = [int(m) for m in sys.argv[4].split(",")]
for kv in sys.argv[5:]:
    n, v = kv.split("=")
    setattr(P, n, type(getattr(P, n))(float(v)))
DAYS = np.arange("2000-01-01", "2002-01-01", dtype="datetime64[D]")
MONTH = (DAYS.astype("datetime64[M]").astype(int) % 12) + 1


def idx(key):
    try:
        k = ast.literal_eval(key)
    except Exception:
        return None
    return k[1] if isinstance(k, tuple) and len(k) > 1 else None


def wk(a):
    return a.split("-")[-1][:2]


for pol in ("queue", "tidegate"):
    r = simulate(dsk, keys=out, workers=w, threads_per_worker=t, policy=pol,
                 sizes=lambda k: size.get(k, 0), durations=lambda k: took.get(k, 1e-3),
                 seed=int(sys.argv[3]), bandwidth=1e9, outgoing_bandwidth=None, processes=1)
    print(f"{pol}: makespan {r.makespan:.3f} peaks {[round(p / 1e6) for p in r.peak_memory_per_worker]}")
    st = sorted((e for e in r.trace.tasks if e.group == "mean_agg-aggregate-stack"),
                key=lambda e: e.stop)
    print("  stacks (idx worker stop):", " ".join(f"{idx(e.key)}:{wk(e.worker)}@{e.stop:.3f}"
                                                  for e in st))
    for m in MONTHS:
        print(f"  month {m}:")
        for g in ("rechunk-merge", "getitem", "store-map"):
            ev = [e for e in r.trace.tasks if e.group == g and idx(e.key) is not None
                  and idx(e.key) < len(DAYS) and MONTH[idx(e.key)] == m]
            if not ev:
                continue
            c = collections.Counter(wk(e.worker) for e in ev)
            print(f"    {g:14s} n {len(ev):3d} on {dict(sorted(c.items()))} start "
                  f"{min(e.start for e in ev):.3f}-{max(e.start for e in ev):.3f} stop max "
                  f"{max(e.stop for e in ev):.3f}")
        tr = [x for x in r.trace.transfers if x.key.startswith("('getitem")
              and idx(x.key) is not None and idx(x.key) < len(DAYS) and MONTH[idx(x.key)] == m]
        c = collections.Counter(f"{wk(x.source)}->{wk(x.dest)}" for x in tr)
        if tr:
            print(f"    day-slice copies {len(tr)} {dict(c)} {min(x.start for x in tr):.3f}-"
                  f"{max(x.stop for x in tr):.3f}")
        tr = [x for x in r.trace.transfers if x.key.startswith("('rechunk-merge")
              and idx(x.key) is not None and idx(x.key) < len(DAYS) and MONTH[idx(x.key)] == m]
        c = collections.Counter(f"{wk(x.source)}->{wk(x.dest)}" for x in tr)
        if tr:
            print(f"    data-day copies {len(tr)} {dict(c)} {min(x.start for x in tr):.3f}-"
                  f"{max(x.stop for x in tr):.3f}")
