"""Every root placement (Placement._decide) of the twin anomaly with its virtual time and
answer, for the loads of chosen level-2 blocks (P = loads 16P..16P+15).

    PYTHONPATH=src python bench/results/anom47-tools/rootcalls.py WORKERS STEPS P [P ...]
"""
import sys
from tidegate.distributed import placement as P
from tidegate.sim import simulate
from tidegate.sim.workloads import build

workers, steps = int(sys.argv[1]), int(sys.argv[2])
blocks = {int(x) for x in sys.argv[3:]}
orig = P.Placement._decide
calls = []


def decide(self, ts, stimulus_id=None):
    out = orig(self, ts, stimulus_id)
    k = ts.key
    if isinstance(k, tuple) and k[0].startswith("open") and k[1] // 16 in blocks:
        w = out if out is None or isinstance(out, str) else getattr(out, "address", out)
        calls.append((round(self.scheduler.loop.time(), 3), k[1], k[1] // 4,
                      str(w).rsplit("-", 1)[-1], ts.state, stimulus_id and stimulus_id[:30]))
    return out


P.Placement._decide = decide
model = build("anomaly", steps, 190e6, store=False).model()
simulate(model, workers=workers, threads_per_worker=4, policy="tidegate", bandwidth=1e9,
         record_memory=False)
for c in calls:
    print(*c)
