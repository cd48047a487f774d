"""Per task: _may_fit calls, workers its loop reads, books.awaits calls (twin anomaly)."""
import sys, collections
from tidegate.books import Books
from tidegate.distributed.placement import Placement
from tidegate.sim import simulate
from tidegate.sim.model import build_model
from tidegate.sim.workloads import build
name, per, W = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
c = collections.Counter()
om = Placement._may_fit
def mf(self, opens):
    c["may_fit"] += 1
    out = om(self, opens)
    c["loop_len"] += len(self._count) if opens and self.books.combines is not None else 0
    return out
Placement._may_fit = mf
oa = Books.awaits
def aw(self, w):
    c["awaits"] += 1; return oa(self, w)
Books.awaits = aw
ad = Books._admits
def adm(self, *a, **k):
    c["_admits"] += 1; return ad(self, *a, **k)
Books._admits = adm
w = build(name, int(per * W), 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
simulate(model, workers=W, threads_per_worker=4, policy="tidegate", bandwidth="1GB/s", record_memory=False)
n = len(model.dsk)
print(name, "W", W, " ".join(f"{k}={v / n:.2f}" for k, v in sorted(c.items())))
