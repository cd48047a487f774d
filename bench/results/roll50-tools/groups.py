"""python groups.py BUILD.pkl...: per build, each task group's count, median / max duration
and median size (the builds' measured outliers decide the worst namings: grp32-35)."""
import collections
import statistics
import sys

import cloudpickle
from dask.utils import key_split

for p in sys.argv[1:]:
    dsk, out, took, size = cloudpickle.load(open(p, "rb"))
    by = collections.defaultdict(list)
    for k in dsk:
        by[key_split(k)].append(k)
    print(p, len(dsk), "tasks")
    for g, ks in sorted(by.items(), key=lambda x: -len(x[1])):
        d = [took.get(k, 1e-3) for k in ks]
        s = [size.get(k, 0) for k in ks]
        print(f"  {g[:28]:28s} n={len(ks):4d} dur med {statistics.median(d):.4f} max "
              f"{max(d):.4f} sum {sum(d):.3f} | MB med {statistics.median(s) / 1e6:.2f}")
