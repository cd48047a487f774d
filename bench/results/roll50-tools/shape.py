"""python shape.py BUILD.pkl: the graph around one chunk load (rolling's structure)."""
import sys

import cloudpickle
from dask.utils import key_split
from dask.core import get_dependencies

dsk, out, took, size = cloudpickle.load(open(sys.argv[1], "rb"))
deps = {k: get_dependencies(dsk, k) for k in dsk}
dents = {k: set() for k in dsk}
for k, ds in deps.items():
    for d in ds:
        dents[d].add(k)
loads = sorted(k for k in dsk if key_split(k).startswith("open_dataset"))
print(len(loads), "loads; first:", loads[:3])
seen = set()
def walk(k, depth, maxd):
    if depth > maxd:
        return
    for d in sorted(dents[k], key=str):
        print("  " * depth, key_split(d), d if isinstance(d, str) else d[1:], "<-",
              len(deps[d]), "deps", f"{size.get(d, 0) / 1e6:.2f} MB", f"{took.get(d, 0):.4f}s")
        if d not in seen:
            seen.add(d)
            walk(d, depth + 1, maxd)
walk(loads[int(sys.argv[2]) if len(sys.argv) > 2 else 5], 0, int(sys.argv[3]) if len(sys.argv) > 3 else 3)
