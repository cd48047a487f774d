import tidegate.distributed.hooks as H
from dask.utils import key_split
from tidegate.sim import simulate
from tidegate.sim.workloads import build
hits = set()
_ot = H._target
def _t(ts):
    r = _ot(ts)
    if r: hits.add((key_split(ts.key), len(ts.dependents), type(ts.run_spec).__name__))
    return r
H._target = _t
for store in (False, True):
    w = build("weighted", 20, 190e6, store=store)
    simulate(w.model(), policy="tidegate", workers=4, threads_per_worker=2, processes=1, record_memory=False)
    print(store, hits)
