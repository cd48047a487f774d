import sys, os
sys.path.insert(0, "/tmp/one33/bench")
import plugin_fingerprints as F
import tidegate.distributed.hooks as H
from dask.utils import key_split
from tidegate.sim import simulate
hits = set()
_ot = H._target
def _t(ts):
    r = _ot(ts)
    if r: hits.add((key_split(ts.key), len(ts.dependents), type(ts.run_spec).__name__, len(ts.dependencies)))
    return r
H._target = _t
simulate(F.shape_model("weights-s0"), policy="tidegate", workers=12, threads_per_worker=2, bandwidth="100MB/s")
print(hits)
