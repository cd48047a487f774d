"""python shape.py BUILD.pkl: the groupby store's graph around one climatology stack (grp50)."""
import collections
import sys

import cloudpickle
from dask.utils import key_split

dsk, out, took, size = cloudpickle.load(open(sys.argv[1], "rb"))
deps = {k: set(v.dependencies) for k, v in dsk.items()}
readers = collections.defaultdict(set)
for k, ds in deps.items():
    for d in ds:
        readers[d].add(k)
g = collections.Counter(key_split(k) for k in dsk)
dur = collections.defaultdict(list)
for k in dsk:
    dur[key_split(k)].append(took.get(k, 1e-3))
for n, c in g.most_common():
    ks = [k for k in dsk if key_split(k) == n]
    sz = sorted(size.get(k, 0) for k in ks)
    d = sorted(dur[n])
    print(f"{n[:40]:40s} {c:5d} size med {sz[len(sz)//2]/1e6:8.3f} MB max {sz[-1]/1e6:8.3f}"
          f" dur med {d[len(d)//2]*1e3:7.2f} ms max {d[-1]*1e3:7.2f} deps {collections.Counter(key_split(x) for k in ks[:1] for x in deps[k])}"
          f" readers {collections.Counter(key_split(x) for k in ks[:1] for x in readers[k])}")
