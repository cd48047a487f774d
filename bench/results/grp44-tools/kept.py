"""grp44: _admits asks and the schedule of anomaly 400 steps at 40 x 4 (test_plugin_remembered's
kept-step test), BACKLOG_BURST 0 vs 1, refusals kept (as main) or forgotten."""
import sys
from tidegate import policy
from tidegate.books import Books
from tidegate.sim import simulate
from tidegate.sim.model import build_model
from tidegate.sim.workloads import build
admits = Books._admits
place = Books.place
asked = [0]
def counted(self, *a, **k):
    asked[0] += 1
    return admits(self, *a, **k)
Books._admits = counted
for burst in (0, 1):
    for forget in (False, True):
        policy.BACKLOG_BURST = burst
        def forgetting(self, *a, **k):
            self._refusals.clear()
            return place(self, *a, **k)
        Books.place = forgetting if forget else place
        asked[0] = 0
        w = build("anomaly", 400, 190e6, store=False)
        model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
        r = simulate(model, workers=40, threads_per_worker=4, policy="tidegate",
                     bandwidth="1GB/s", record_memory=False)
        print(f"BURST {burst} forget {forget}: asked {asked[0]} makespan {r.makespan:.4f} "
              f"peak {max(r.peak_memory_per_worker)/1e6:.1f} moved {r.bytes_transferred/1e6:.1f}",
              flush=True)
