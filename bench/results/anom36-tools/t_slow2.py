import sys, importlib.util
sys.path.insert(0, "tests")
import tidegate.policy as P
import tidegate.distributed.placement as PL
from _namings import NAMINGS, renamed
spec = importlib.util.spec_from_file_location("tsw", "bench/twin_slow_worker.py")
b = importlib.util.module_from_spec(spec); spec.loader.exec_module(b)
orig = PL.Placement._combine_elsewhere
def ce(self, ts, local, chosen):
    r = orig(self, ts, local, chosen)
    if r is not None:
        bw = self.books.workers
        print("  moved", ts.key, chosen[-6:], "->", r.address[-6:], {a[-6:]: (round(v/1e6), bw[a].processing, bw[a].threads) for a, v in local.items()},
              {a[-6:]: (round(w.nbytes/1e6), bw[a].processing, bw[a].roots_processing) for a, w in self.scheduler.workers.items()})
    return r
PL.Placement._combine_elsewhere = ce
for v in (0, 1):
    P.COMBINE_BY_HELD = v
    out = b.run(2.0, mode="group", workers=4)
    t, q = out["tidegate"], out["queue"]
    print(v, t["makespan"], q["makespan"], t["peak"]/1e6, q["peak"]/1e6, t["loads_per_worker"], t["bytes_transferred"]/1e6)
