import sys
from pathlib import Path
sys.path.insert(0, "/tmp/tail33/bench")
import wall24_twin as W
from dask.utils import key_split
name = sys.argv[1]
bd = W._bench(); bd._INPUTS["steps"] = 48
m = W.model_of(bd, name, 48, 3, Path("/tmp/tail33/measured.json"))
deps = {k: v.dependencies for k, v in m.dsk.items()}
readers = {}
for k, ds in deps.items():
    for d in ds: readers.setdefault(d, []).append(k)
def s(k):
    return f"{key_split(k)}{k[1:] if isinstance(k, tuple) else ''}"
for k in sorted(m.dsk, key=str)[: int(sys.argv[2]) if len(sys.argv) > 2 else None]:
    print(s(k), round((m.sizes.get(k) or 0)/1e6, 2), f"{(m.durations.get(k) or 0)*1e3:.1f}ms",
          "<-", [s(d) for d in deps[k]], "readers", len(readers.get(k, [])))
