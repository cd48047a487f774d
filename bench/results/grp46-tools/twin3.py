import sys, collections
import tidegate.books as B
import tidegate.policy as P
from tidegate.sim import simulate

own = int(sys.argv[1]); P.BACKLOG_BURST_OWN = own
n = int(sys.argv[2]); pieces = 20
cur = []
seen = collections.Counter()
ORDER = []
_or = B.Books.on_run
def onrun(self, task, w, root, *a, **k):
    if root: ORDER.append(str(task[0]).split("-")[0][0])
    return _or(self, task, w, root, *a, **k)
B.Books.on_run = onrun
_bl = B.backlogged
CALLS = []
def bl(*a):
    r = _bl(*a)
    if cur and cur[-1].startswith('z'): CALLS.append((a[0], a[1], a[2], round(a[4]/1e6), round(a[5]/1e6), a[6], r))
    if cur and r and len(a) >= 7 and a[6] and not _bl(*a[:6], 0):
        seen[cur[-1]] += 1
    return r
B.backlogged = bl
def wrap(name, gi):
    f = getattr(B.Books, name)
    def g(self, *a, **k):
        cur.append(str(a[gi]).split("-")[0])
        try: return f(self, *a, **k)
        finally: cur.pop()
    setattr(B.Books, name, g)
wrap("admits", 3); wrap("place", 2); wrap("refuses_further", 1)
BK = []
_i = B.Books.__init__
def _init(self, *a, **k):
    _i(self, *a, **k); BK.append(self)
B.Books.__init__ = _init

def f(*a):
    return None
dsk = {}
for i in range(n):
    dsk[("cutload-1", i)] = (f,)
    for j in range(pieces):
        dsk[("cut-2", i, j)] = (f, ("cutload-1", i))
for j in range(pieces):
    for m in range(n // 4):
        dsk[("merge-3", j, m)] = (f, [("cut-2", i, j) for i in range(4 * m, 4 * m + 4)])
    dsk[("agg-4", j)] = (f, [("merge-3", j, m) for m in range(n // 4)])
np_ = int(sys.argv[5])
for i in range(np_):
    dsk[("zplain-5", i)] = (f,)
for i in range(np_ // 2):
    dsk[("add-6", i)] = (f, ("zplain-5", 2 * i), ("zplain-5", 2 * i + 1))
for i in range(np_ // 8):
    dsk[("part-8", i)] = (f, [("add-6", j) for j in range(4 * i, 4 * i + 4)])
dsk[("total-7",)] = (f, [("part-8", i) for i in range(np_ // 8)])
keys = [("agg-4", j) for j in range(pieces)] + [("total-7",)]
if 0:
    del dsk[("total-7",)]
    keys = [("agg-4", j) for j in range(pieces)] + [("add-6", i) for i in range(np_)]
size = {"cutload": 16e6, "cut": 16e6 / pieces, "merge": 3e6, "agg": 1e3,
        "zplain": 16e6, "add": 16e6, "total": 1e3, "part": 1e3}
took = {"cutload": 0.02, "cut": float(sys.argv[8]), "merge": float(sys.argv[7]), "agg": 1e-3, "zplain": float(sys.argv[4]),
        "add": float(sys.argv[3]), "total": 1e-3, "part": 1e-3}
key = lambda k: k[0].split("-")[0]
from tidegate.sim.model import build_model
model = build_model(dsk, keys, sizes=lambda k: size[key(k)], durations=lambda k: took[key(k)])
pr = model.priorities
model._priorities = {k: v + (len(pr) if key(k) in ("zplain", "add", "total", "part") else 0) for k, v in pr.items()}
r = simulate(model, workers=2, threads_per_worker=2, policy="tidegate", seed=0)
print(own, dict(seen), r.makespan, [(b.cuts_max, b._cut_groups) for b in BK])
seq = [e for e in BK[0].log if e[1] in ("withheld",)]
print(collections.Counter(str(e[0]).split("-")[0] for e in seq))
print("".join(ORDER))

print(len(CALLS), CALLS[:30])
