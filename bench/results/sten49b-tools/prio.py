"""sten49b: the stencil's roots in dask.order's priority order for naming N."""
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(here)))
import trace_twin  # noqa: E402
import ab_twin  # noqa: E402
from dask.order import order  # noqa: E402

n = int(sys.argv[1])
only = sys.argv[2] if len(sys.argv) > 2 else "stencil"
_, model, graphs = next(ab_twin.S.models([only], os.path.join(
    os.path.dirname(here), "wall24-measured.json"), n + 1))
dsk = graphs[n][0] if graphs[n] else model.dsk
o = order(dsk)
rs = sorted((p, trace_twin.short(str(k), n)) for k, p in o.items() if "random_sample" in str(k))
print(" ".join(f"{p}:{s.split('(')[1].rstrip(')')}" for p, s in rs))
