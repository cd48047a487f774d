import sys, os
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import wall29_small as S
from dask.order import order
name, model, graphs = next(S.models(["seed-rechunk-add"], os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "wall24-measured.json"), 1))
dsk = model.dsk
o = order(dsk)
from dask.core import get_dependencies
import collections
def short(k):
    from dask.utils import key_split
    return f"{key_split(k[0] if isinstance(k, tuple) else k)}{k[0][-6:] if isinstance(k,tuple) else ''}{k[1:] if isinstance(k,tuple) else ''}"
items = sorted(o.items(), key=lambda kv: kv[1])
for k, p in items[:80]:
    deps = get_dependencies(dsk, k)
    print(p, short(k), [short(d) for d in deps][:4], model.sizes.get(k), model.durations.get(k))
