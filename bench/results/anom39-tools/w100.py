"""weighted 100x4 200MB/s (plugin fingerprints' config), BROADCAST_LEARN old/new: broadcast
copies started per grid and when each grid's copies were all done."""
import math, os, sys, tempfile, collections
sys.path.insert(0, "/work/wt/anom39/bench")
import plugin_fingerprints as P
from tidegate import policy
from tidegate.sim import simulate
import tidegate.distributed.broadcast as B

name = sys.argv[1] if len(sys.argv) > 1 else "weighted"
shape = sys.argv[2] if len(sys.argv) > 2 else "100x4"
out = sys.argv[3] if len(sys.argv) > 3 else "limited"
vals = sys.argv[4].split(",") if len(sys.argv) > 4 else ["0", "1"]
log = []
_o = B.Broadcast._timed
def landed(self, k, g, took):
    n = len(self.verdicts)
    _o(self, k, g, took)
    for v in self.verdicts[n:]:
        log.append(("VERDICT", v, self.level))
B.Broadcast._timed = landed
folder = os.path.join(tempfile.gettempdir(), "tidegate-twin-zarr")
paths = P._zarr_inputs(folder)
for nm, opts, steps, popts, store in P.configs("all"):
    if nm != name or f"{opts['workers']}x{opts['threads_per_worker']}" != shape or popts:
        continue
    model = P.config_model(nm, steps, store, paths, folder)
    extra = {} if out == "limited" else {"outgoing_bandwidth": math.inf}
    for v in vals:
        policy.BROADCAST_LEARN = int(v)
        log.clear()
        r = simulate(model, policy="tidegate", **opts, **extra)
        b = r.trace
        xs = [t for t in b.transfers if t.nbytes >= 1e6]
        by = collections.defaultdict(list)
        for t in xs:
            by[t.key].append(t)
        big = {k: v for k, v in by.items() if len(v) >= 8}
        print(f"LEARN={v} makespan {r.makespan:.3f} transfers>=1MB {len(xs)}")
        for k, ts in sorted(big.items(), key=lambda kv: min(t.start for t in kv[1])):
            print(f"  {k[:40]:40s} copies {len(ts):3d} first {min(t.start for t in ts):.3f} "
                  f"last {max(t.stop for t in ts):.3f}")
        for l in log[:10]:
            print("  ", l)
        cl = r.trace.meta
    break
