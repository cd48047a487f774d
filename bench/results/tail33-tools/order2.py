import sys
from pathlib import Path
sys.path.insert(0, "/tmp/tail33/bench")
import wall24_twin as W
from dask.utils import key_split
from tidegate.sim.hashing import stable_order
name, n = sys.argv[1], int(sys.argv[2])
bd = W._bench(); bd._INPUTS["steps"] = 48
m = W.model_of(bd, name, 48, 3, Path("/tmp/tail33/measured.json"))
def renamed(model, n):
    def new(k):
        return (f"{k[0]}-n{n}",) + k[1:] if isinstance(k, tuple) else f"{k}-n{n}"
    ren = {k: new(k) for k in model.dsk}
    return {ren[k]: v.substitute(ren, key=ren[k]) for k, v in model.dsk.items()}
dsk = renamed(m, n) if n else m.dsk
o = stable_order(dsk)
def s(k):
    return f"{key_split(k)}{k[1:] if isinstance(k, tuple) else ''}"
roots = [s(k) for k in sorted(o, key=o.get) if not dsk[k].dependencies]
print(" ".join(r.replace("random_sample","") for r in roots))
