"""How often books.ALL_REFUSED's memo is saved and answers, and how many combine-view asks
those walks make (twin, as bench/plugin_ops.py runs it).
    PYTHONHASHSEED=0 PYTHONPATH=src python bench/results/cpu39c-tools/memo_stats.py anomaly 1 100"""
import sys
from tidegate import books as bm
from tidegate.sim import simulate
from tidegate.sim.model import build_model
from tidegate.sim.workloads import build
STEPS = {"stack-sum": 2000, "slice-add": 2000, "anomaly": 1000, "rechunk-add": 1000}  # (plugin_ops.STEPS)

name, scale, workers = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
stats = {"place": 0, "saved": 0, "hit": 0, "viewed saved": 0, "views_as calls": 0,
         "awaits": 0, "all-refused walk candidates": 0}
place, awaits, views = bm.Books.place, bm.Books.awaits, getattr(bm.Books, "_views_as", None)

def p(self, *a, **k):
    stats["place"] += 1
    before = self._all_refused if hasattr(self, "_all_refused") else None
    out = place(self, *a, **k)
    m = getattr(self, "_all_refused", None)
    if m is not None:
        if m is before:
            stats["hit"] += 1
        else:
            stats["saved"] += 1
            stats["viewed saved"] += len(m[5])
            stats["all-refused walk candidates"] += len(m[2])
    return out

def aw(self, w):
    stats["awaits"] += 1
    return awaits(self, w)

bm.Books.place, bm.Books.awaits = p, aw
if views:
    def v(self, a, viewed):
        stats["views_as calls"] += 1
        return views(self, a, viewed)
    bm.Books._views_as = v
w = build(name, int(STEPS[name] * scale), 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
r = simulate(model, workers=workers, threads_per_worker=4, policy="tidegate",
             bandwidth="1GB/s", record_memory=False)
n = len(r.trace.tasks)
print(n, "tasks;", {k: (v, round(v / n, 4)) for k, v in stats.items()})
