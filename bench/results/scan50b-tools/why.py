import sys, collections
import tidegate.books as B
from tidegate.books import Books
from tidegate import policy
from tidegate.distributed.hooks import Plugin
from tidegate.sim import simulate
from tidegate.sim.model import build_model
from tidegate.sim.workloads import build
name, per, W = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
PL = []; asks = []; shown = [0]; stats = collections.Counter()
oi = Plugin.install
def install(self, *a, **k):
    PL.append(self); return oi(self, *a, **k)
Plugin.install = install
om = B.may_admit_root
last = [None]
def mar(*a, **k):
    out = om(*a, **k); last[0] = (a, k, out); return out
B.may_admit_root = mar
oa = Books._admits
def _admits(self, book, w, task, est, cc, sid, progress=True, reserved=0, spread=False,
            waiting=0, opens=0, *a, **k):
    last[0] = None
    out = oa(self, book, w, task, est, cc, sid, progress, reserved, spread, waiting, opens, *a, **k)
    asks.append((w, out, opens, reserved, waiting, dict(rp=book.roots_processing, ru=book.roots_untouched,
                 owed=book.owed, cap=book.cap, proc=book.processing, thr=book.threads, passes=book.passes),
                 last[0]))
    return out
Books._admits = _admits
op = Books.place
def place(self, *a, **k):
    f = sys._getframe(1)
    p = PL[0]
    del asks[:]
    commits = k.get("commits", False)
    lacks = a[6] if len(a) > 6 else k.get("lacks")
    opens = self.opens(lacks) if commits else 0
    fitw = {w: c for w, c in p._count.items() if c[1] + max(0, opens - c[0]) < 0}
    out = op(self, *a, **k)
    if out is None and f.f_code.co_name == "_decide" and len(asks) >= 20:
        stats["refused places"] += 1
        asked = {x[0] for x in asks}
        stats["fit-by-count"] += len(fitw); stats["fit asked"] += len(asked & set(fitw))
        stats["asks"] += len(asks)
        if shown[0] < 3:
            shown[0] += 1
            print("place at line", f.f_lineno, "task", a[0], "commits", commits, "opens", opens,
                  "nfit", len(fitw), "asked", len(asks), "kwargs", {kk: v for kk, v in k.items() if kk != 'stagger'}, "stagger", k.get("stagger"))
            for x in asks:
                if x[0] in fitw:
                    print("  ", x[0], "count", fitw[x[0]], x[1:6]); print("     mar", x[6][0] if x[6] else None, x[6][1] if x[6] else None)
                    break
    return out
Books.place = place
w = build(name, int(per * W), 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
simulate(model, workers=W, threads_per_worker=4, policy="tidegate", bandwidth="1GB/s", record_memory=False)
print(stats)
