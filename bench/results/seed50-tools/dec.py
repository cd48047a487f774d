# every Placement._decide of the anomaly's loads: result, and books.log lines added
import sys
from tidegate import policy
from tidegate.sim import simulate
from tidegate.sim.workloads import build
from tidegate.distributed import placement as P
name, steps, shape = sys.argv[1], int(sys.argv[2]), sys.argv[3]
for a in sys.argv[4:]:
    if "=" in a:
        k, v = a.split("="); setattr(policy, k, eval(v))
orig = P.Placement._decide
def _decide(self, ts, stimulus_id=None):
    n = len(self.books.log)
    out = orig(self, ts, stimulus_id)
    now = self.scheduler._clock() if hasattr(self.scheduler, "_clock") else None
    print("DECIDE", ts.key, "->", out, "sid", stimulus_id, "log", list(self.books.log)[n:] if len(self.books.log) >= n else list(self.books.log))
    return out
P.Placement._decide = _decide
W, T = map(int, shape.split("x"))
model = build(name, steps, 190e6, store=True).model()
r, = simulate(model, workers=W, threads_per_worker=T, seed=0, policy=["tidegate"],
              record_memory=False, processes=1)
print("makespan", round(r.makespan, 3), [round(x / 1e6) for x in r.peak_memory_per_worker])
