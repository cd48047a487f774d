"""python lorder.py BUILD.pkl WxT SEED [NAME=V ...]: per policy, each chunk load (index,
worker, start-stop) in start order, and when its 15 MB data (where-concatenate / overlap-sum
chain) was last read: how long loaded data waits for its halo neighbours."""
import sys

import cloudpickle
from dask.core import get_dependencies
from dask.utils import key_split

import tidegate.policy as P
from tidegate.sim import simulate
import os  # noqa: E402
for _p in filter(None, os.environ.get("PATCH", "").split(",")):  # roll50: prototypes
    exec(open(_p).read(), {"__name__": "patch"})

dsk, out, took, size = cloudpickle.load(open(sys.argv[1], "rb"))
w, t = map(int, sys.argv[2].split("x"))
for kv in sys.argv[4:]:
    n, v = kv.split("=")
    setattr(P, n, type(getattr(P, n))(float(v)))
deps = {k: get_dependencies(dsk, k) for k in dsk}
dents = {k: [] for k in dsk}
for k, ds in deps.items():
    for d in ds:
        dents[d].append(k)
for pol in ("queue", "tidegate"):
    r = simulate(dsk, keys=out, workers=w, threads_per_worker=t, policy=pol,
                 sizes=lambda k: size.get(k, 0), durations=lambda k: took.get(k, 1e-3),
                 seed=int(sys.argv[3]), bandwidth=1e9, outgoing_bandwidth=None, processes=1)
    ev = {e.key: e for e in r.trace.tasks}
    print(pol, f"makespan {r.makespan:.3f}")
    loads = sorted((k for k in dsk if key_split(k).startswith("open_dataset")),
                   key=lambda k: ev[str(k)].start)
    for k in loads:
        e = ev[str(k)]
        # the chunk's readers and their readers' end: when its data was last used
        rd = [ev[str(d)] for d in dents[k]]
        last = max(x.start for x in rd)
        ov = [d for d in dsk if key_split(d) == "overlap-sum" and d[1] == k[1]]
        ovs = ev[str(ov[0])] if ov else None
        print(f"  L{k[1]:2d} {e.worker.split('-')[-1][:2]} {e.start:.3f}-{e.stop:.3f}"
              f"  readers start by {last:.3f}"
              + (f"  overlap-sum({k[1]}) {ovs.worker.split('-')[-1][:2]} {ovs.start:.3f}-"
                 f"{ovs.stop:.3f}" if ovs else ""))
