"""grp43: in which order, where and when each policy started the chunk loads of one
grp27_twin build (dask.order's rank of each root among the roots), and per month-ish group
of consumers... Prints per policy: start time, worker, root rank.

    PYTHONPATH=src python roots_order.py FOLDER/gN.pkl WxT SEED [--set NAME=VALUE]
"""
import argparse

import cloudpickle
import dask
from dask.utils import key_split

import tidegate.policy as P
from tidegate.sim import simulate

ap = argparse.ArgumentParser()
ap.add_argument("build"); ap.add_argument("shape"); ap.add_argument("seed", type=int)
ap.add_argument("--set", action="append", default=[])
ap.add_argument("--policies", default="queue,tidegate")
a = ap.parse_args()
for kv in a.set:
    k, v = kv.split("=")
    setattr(P, k, type(getattr(P, k))(float(v)))
with open(a.build, "rb") as f:
    dsk, out, took, size = cloudpickle.load(f)
o = dask.order.order(dsk)
roots = sorted((k for k in dsk if key_split(k) == "open_dataset-u"), key=o.get)
rank = {str(k): i for i, k in enumerate(roots)}
w, t = map(int, a.shape.split("x"))
for pol in a.policies.split(","):
    r = simulate(dsk, keys=out, workers=w, threads_per_worker=t, policy=pol,
                 sizes=lambda k: size.get(k, 0), durations=lambda k: took.get(k, 1e-3),
                 seed=a.seed, bandwidth=1e9, processes=1)
    loads = sorted((e.start, e.worker[-4:], rank[str(e.key)]) for e in r.trace.tasks
                   if str(e.key) in rank)
    print(f"== {pol} peaks {[round(p / 1e6) for p in r.peak_memory_per_worker]}")
    print("  " + " ".join(f"{s:.2f}:{wk[-3:]}:{k}" for s, wk, k in loads))
