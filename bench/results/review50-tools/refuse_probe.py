"""Which clause refuses the roots asked of every free worker at _decide's last place."""
import sys, collections
import tidegate.books as B
from tidegate.books import Books
from tidegate import policy
from tidegate.sim import simulate
from tidegate.sim.model import build_model
from tidegate.sim.workloads import build
name, per, W = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
rec = []; cur = [0]; why = collections.Counter()
om = B.may_admit_root
def mar(*a, **k):
    out = om(*a, **k)
    rec.append((a, k, out))
    return out
B.may_admit_root = mar
oa = Books._admits
def _admits(self, book, w, *a, **k):
    cur[0] += 1
    n = len(rec)
    out = oa(self, book, w, *a, **k)
    if not out:
        if len(rec) == n:
            rec.append(("early", k.get("pair"), k.get("unit"), bool(k.get("awaits"))))
        else:
            rec[-1] = rec[-1] + ((book.roots_processing + book.roots_untouched, book.owed, book.cap, book.processing, book.threads, k.get("opens", 0)),)
    return out
Books._admits = _admits
op = Books.place
def place(self, *a, **k):
    f = sys._getframe(1)
    cur[0] = 0; del rec[:]
    out = op(self, *a, **k)
    if out is None and cur[0] >= 20 and f.f_code.co_name == "_decide":
        for r in rec:
            if r[0] == "early":
                why[("early", r[1:])] += 1
            elif not r[2]:
                args, kw, _, *extra = r
                rp, ru, cap, comp, held, est, budget, idle = args[:8]
                owed = kw.get("owed", args[8] if len(args) > 8 else 0)
                bl = args[13] if len(args) > 13 else kw.get("backlogged")
                fl, bo, bc, bp, bt, op_ = extra[0] if extra else (None,)*6
                why[("count" if rp + ru >= cap else ("owed+opens" if rp + ru + owed >= cap else "other"),
                     "backlogged" if bl else "", "beside" if (kw.get("beside") or (len(args) > 9 and args[9])) else "", "opens", op_)] += 1
    return out
Books.place = place
w = build(name, int(per * W), 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
simulate(model, workers=W, threads_per_worker=4, policy="tidegate", bandwidth="1GB/s", record_memory=False)
print("W", W, why.most_common(8))
