import sys, math
from pathlib import Path
sys.path.insert(0, "/tmp/one33/bench")
import wall24_twin as W
from tidegate.sim import simulate
import tidegate.distributed.hooks as H
from dask.utils import key_split
hits = {}
_ot = H._target
def _t(ts):
    r = _ot(ts)
    if r:
        hits.setdefault(cur, set()).add(key_split(ts.key))
    return r
H._target = _t
bd = W._bench(); bd._INPUTS["steps"] = 48
names = sys.argv[1].split(",")
for cur in names:
    model = W.model_of(bd, cur, 48, 3, Path("/tmp/one33/measured.json"))
    simulate(model, policy="tidegate", workers=2, threads_per_worker=1, bandwidth=200e6,
             outgoing_bandwidth=200e6, latency=0.001, thread_lag=0.002, seed=0,
             record_memory=False, processes=1)
    print(cur, sorted(hits.get(cur, ())), flush=True)
