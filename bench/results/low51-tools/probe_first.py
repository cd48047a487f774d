"""rev50m LOW 1 (low51 item d): at every poke, the roots noted in _first_parked that are
not parked. Usage: PYTHONPATH=src python probe_first.py STEPS WORKERS THREADS (anomaly with
stores, seed 0). main 9b8221d: one poke with load 0 noted in line; low51: 0."""
import sys

from tidegate.distributed import hooks
from tidegate.sim import simulate
from tidegate.sim.workloads import build

seen = []
poke = hooks.Plugin.poke


def checking(self, stimulus_id):
    stale = [ts for ts in self._first_parked if ts not in self._parked]
    if stale:
        seen.append((stimulus_id, [ts.key for ts in stale], [ts in self._ready for ts in stale]))
    return poke(self, stimulus_id)


hooks.Plugin.poke = checking
steps, w, t = map(int, sys.argv[1:4])
model = build("anomaly", steps, 190e6, store=True).model()
(r,) = simulate(model, workers=w, threads_per_worker=t, seed=0, policy=["tidegate"],
                record_memory=False, processes=1)
print(len(seen), seen[:3])
