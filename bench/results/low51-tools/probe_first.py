import sys
from tidegate import policy
from tidegate.distributed import hooks
from tidegate.sim import simulate
from tidegate.sim.workloads import build
seen = []
poke = hooks.Plugin.poke
def checking(self, stimulus_id):
    stale = [ts.key for ts in self._first_parked if ts not in self._parked]
    if stale: seen.append((stimulus_id, stale, [self._ready.__contains__(t) for t in self._first_parked if t not in self._parked]))
    return poke(self, stimulus_id)
hooks.Plugin.poke = checking
steps, w, t = map(int, sys.argv[1:4])
model = build("anomaly", steps, 190e6, store=True).model()
(r,) = simulate(model, workers=w, threads_per_worker=t, seed=0, policy=["tidegate"], record_memory=False, processes=1)
print(len(seen), seen[:3])
