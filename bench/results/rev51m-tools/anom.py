import sys
from tidegate.distributed import placement as PL
import tidegate.policy as P
from tidegate.sim import simulate
from tidegate.sim.workloads import build
orig = PL.Placement._fewer_readers
def guarded(self, ts, local, addr):
    out = orig(self, ts, local, addr)
    if out != addr:
        b = self.books.workers.get(out)
        if b is None or b.processing >= b.threads:
            return addr
    return out
for steps, shape in ((6, "2x2"), (6, "4x2"), (6, "2x4")):
    w, t = map(int, shape.split("x"))
    x = build("anomaly", steps, 190e6, store=True).model()
    for label, v, g in (("off", 0, False), ("on", 1, False), ("on+guard", 1, True)):
        P.TIE_FEWER_READERS = v
        PL.Placement._fewer_readers = guarded if g else orig
        r = simulate(x, policy="tidegate", workers=w, threads_per_worker=t, seed=0, record_memory=False, processes=1)
        print(steps, shape, label, f"time {r.makespan:.3f} peak {max(r.peak_memory_per_worker)/1e6:.0f} moved {r.bytes_transferred/1e6:.0f}")
