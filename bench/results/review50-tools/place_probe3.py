import sys, collections
from tidegate.books import Books
from tidegate import policy
from tidegate.distributed.hooks import Plugin
from tidegate.sim import simulate
from tidegate.sim.model import build_model
from tidegate.sim.workloads import build
name, per, W = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
cur = [0]; why = collections.Counter(); PL = []
oa = Books._admits
def _admits(self, *a, **k):
    cur[0] += 1
    return oa(self, *a, **k)
Books._admits = _admits
oi = Plugin.install
def install(self, *a, **k):
    PL.append(self); return oi(self, *a, **k)
Plugin.install = install
op = Books.place
def place(self, *a, **k):
    f = sys._getframe(1)
    p = PL[0]
    task, partners = a[0], a[3]
    lacks = a[6] if len(a) > 6 else k.get("lacks")
    commits = k.get("commits", False)
    pre = (f.f_code.co_name, f.f_lineno, "partners", bool(partners), "idle", bool(p._idle),
           "changed", bool(self.changed), "reserved", self.reserved(task),
           "fits", policy.may_fit_count(p._counts, self.opens(lacks) if commits and lacks else 0), "wave", p._wave is not None, "nfit", sum(1 for a, c in p._count.items() if c[1] < 0), "stale", sum(1 for a, c in p._count.items() if c[1] < 0 and a in self.workers and c[1] != self.workers[a].roots_processing + self.workers[a].roots_untouched + self.workers[a].owed - self.workers[a].cap), "freeT-stale", sum(1 for a, c in p._count.items() if c[1] < 0 and a in self.workers and c[0] != (self.workers[a].processing < self.workers[a].threads or self.workers[a].threads == 1)), "opens", self.opens(lacks) if commits and lacks else 0)
    cur[0] = 0
    out = op(self, *a, **k)
    if out is None and cur[0] >= 20:
        why[pre] += cur[0]
    return out
Books.place = place
w = build(name, int(per * W), 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
simulate(model, workers=W, threads_per_worker=4, policy="tidegate", bandwidth="1GB/s", record_memory=False)
n = len(model.dsk)
print("W", W, "tasks", n)
for k, v in why.most_common(6):
    print(f"  {v/n:.2f} admits/task in refused places with >=20 asks:", k)
