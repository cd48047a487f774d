# plugin_fingerprints' zarr-rechunk-add 4x1: where does Placement._join_spread answer, JOIN_SPREAD 0 / 1
import sys, os, collections, tempfile
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import plugin_fingerprints as PF
from tidegate.distributed import placement as P
from tidegate import policy
from tidegate.sim import simulate
hits = collections.Counter()
orig = P.Placement._join_spread
def js(self, ts):
    out = orig(self, ts)
    hits[(ts.group.name[:24], len(ts.group), len(self.scheduler.running), bool(self._idle), out)] += 1
    return out
P.Placement._join_spread = js
folder = os.path.join(tempfile.gettempdir(), "tidegate-twin-zarr")
paths = PF._zarr_inputs(folder)
for store in (False, True):
    model = PF.config_model(("store:" if store else "") + "zarr-rechunk-add", None, store, paths, folder)
    for v in (0, 1):
        policy.JOIN_SPREAD = v
        hits.clear()
        r = simulate(model, policy="tidegate", workers=4, threads_per_worker=1, bandwidth="200MB/s")
        print(store, v, f"{r.makespan:.3f}", [round(x / 1e6) for x in r.peak_memory_per_worker], round(r.bytes_transferred / 1e6), dict(hits))
    q = simulate(model, policy="queue", workers=4, threads_per_worker=1, bandwidth="200MB/s")
    print(store, "queue", f"{q.makespan:.3f}", [round(x / 1e6) for x in q.peak_memory_per_worker], round(q.bytes_transferred / 1e6))
