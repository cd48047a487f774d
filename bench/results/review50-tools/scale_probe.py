"""Per-task counts of the plugin's whole-cluster looks in the twin, at W workers with steps
proportional to W (the same roots per worker): a count per task that grows with W is a
look at every worker (or every parked root) per event."""
import sys, collections
from tidegate.books import Books
from tidegate.distributed import hooks
from tidegate.distributed.hooks import Plugin
from tidegate.sim import simulate
from tidegate.sim.model import build_model
from tidegate.sim.workloads import build

name, per, W = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
counts = collections.Counter()

def wrap(cls, attr, extra=None):
    orig = getattr(cls, attr)
    def f(self, *a, **k):
        counts[attr] += 1
        if extra:
            counts[attr + ":items"] += extra(self, *a, **k)
        return orig(self, *a, **k)
    setattr(cls, attr, f)

wrap(Plugin, "_held_here")
wrap(Plugin, "_refresh")
wrap(Plugin, "_wake", lambda self, k: len(self._waiting_on.get(k, ())))
wrap(Plugin, "_split", lambda self, s, sid: len(self._parked))
wrap(Plugin, "_by_held")
wrap(Plugin, "_heavier")
wrap(Plugin, "_faster")
wrap(Plugin, "_idle_takes")
wrap(Plugin, "_combine_level")
wrap(Plugin, "_poke")
wrap(Books, "_admits")
wrap(Books, "_holds_least", lambda self, *a: len(self.workers))
steps = int(per * W)
w = build(name, steps, 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
simulate(model, workers=W, threads_per_worker=4, policy="tidegate",
         bandwidth="1GB/s", record_memory=False)
n = len(model.dsk)
print(name, "W", W, "steps", steps, "tasks", n, " ".join(
    f"{k}={v / n:.2f}" for k, v in sorted(counts.items())))
