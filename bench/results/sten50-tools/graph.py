"""sten50: the stencil graph of naming N: for each key given (short form, e.g. 'getitem(3,4.1)'),
its dependencies, dependents and dask.order priority. python graph.py N KEY..."""
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(here)))
import trace_twin  # noqa: E402
import ab_twin  # noqa: E402
from dask.order import order  # noqa: E402

n = int(sys.argv[1])
_, model, graphs = next(ab_twin.S.models(["stencil"], os.path.join(
    os.path.dirname(here), "wall24-measured.json"), n + 1))
dsk = graphs[n][0] if graphs[n] else model.dsk
o = order(dsk)
sh = {k: trace_twin.short(str(k), n) for k in dsk}
rev = {v: k for k, v in sh.items()}
dependents = {}
for k, v in dsk.items():
    for d in v.dependencies:
        dependents.setdefault(d, []).append(k)
for s in sys.argv[2:]:
    k = rev[s]
    print(f"{s} prio {o[k]}")
    print("   deps:", " ".join(f"{sh[d]}:{o[d]}" for d in sorted(dsk[k].dependencies, key=o.get)))
    print("   dependents:", " ".join(f"{sh[d]}:{o[d]}" for d in sorted(dependents.get(k, ()),
                                                                    key=o.get)))
