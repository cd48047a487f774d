import sys
from tidegate.sim import worker as simworker
from tidegate.sim import simulate
from tidegate.sim.workloads import build
from dask.utils import key_split
name, steps, shape, who, t0, t1 = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], float(sys.argv[5]), float(sys.argv[6])
pol = sys.argv[7] if len(sys.argv) > 7 else "tidegate"
cls = simworker.SimWorker
handle = cls.handle_stimulus
def hs(self, *events):
    out = handle(self, *events)
    if self.address.endswith(who) and t0 <= self.clock.now <= t1:
        for e in events:
            ks = getattr(e, "keys", None) or [getattr(e, "key", None)]
            ks = [str(k)[:60] for k in list(ks)[:6]]
            print("%.4f %s %s nbytes=%.0f" % (self.clock.now, type(e).__name__, ks, self.state.nbytes/1e6))
    return out
cls.handle_stimulus = hs
W, T = map(int, shape.split("x"))
model = build(name, steps, 190e6, store=True).model()
r, = simulate(model, workers=W, threads_per_worker=T, seed=0, policy=[pol], record_memory=False, processes=1)
print(r.makespan)
