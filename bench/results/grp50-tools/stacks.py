"""python stacks.py BUILD.pkl WxT SEED [NAME=V ...]: per policy, each month's climatology
stack (mean_agg-aggregate-stack): its worker, start, where its mean_chunk inputs ran, and
where its readers (day slices, getitem) and their stores (store-map) ran (grp49b: the 2 x 4
last stretch, grp49's cause (b))."""
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
deps = {str(k): {str(d) for d in v.dependencies} for k, v in dsk.items()}  # trace keys: str
readers = collections.defaultdict(set)
for k, ds in deps.items():
    for d in ds:
        readers[d].add(k)
ws = lambda x: x.split("-")[-1][:2]
for pol in ("queue", "tidegate"):
    r = simulate(dsk, keys=out, workers=w, threads_per_worker=t, policy=pol,
                 sizes=lambda k: size.get(k, 0), durations=lambda k: took.get(k, 1e-3),
                 seed=int(sys.argv[3]), bandwidth=1e9, outgoing_bandwidth=None, processes=1)
    at = {e.key: e for e in r.trace.tasks}
    print(pol, "makespan %.3f" % r.makespan)
    stacks = sorted((e for e in r.trace.tasks if e.group.startswith("mean_agg-aggregate-stack")),
                    key=lambda e: e.start)
    for s in stacks:
        ins = collections.Counter(ws(at[d].worker) for d in deps[s.key] if d in at)
        gets = [at[k] for k in readers[s.key] if k in at]
        gw = collections.Counter(ws(e.worker) for e in gets)
        stores = [at[k] for g in gets for k in readers[g.key] if k in at]
        sw = collections.Counter(ws(e.worker) for e in stores)
        last = max((e.stop for e in stores), default=0)
        print(f"  stack on {ws(s.worker)} {s.start:.3f}-{s.stop:.3f} inputs {dict(ins)} "
              f"readers {dict(gw)} their readers {dict(sw)} last ends {last:.3f}")
