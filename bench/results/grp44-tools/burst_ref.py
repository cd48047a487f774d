"""grp44: where the BACKLOG_BURST clause refuses (the other clauses would not) in one twin run:
time, worker, the book (rp, untouched, processing, held MB, slots MB) at each refusal episode."""
import argparse, collections
import cloudpickle
from dask.utils import key_split
import tidegate.books as B
import tidegate.policy as P
import tidegate.sim.cluster as C
from tidegate.sim import simulate

ap = argparse.ArgumentParser()
ap.add_argument("build"); ap.add_argument("shape"); ap.add_argument("seed", type=int)
ap.add_argument("--set", action="append", default=[])
a = ap.parse_args()
for kv in a.set:
    k, v = kv.split("=")
    setattr(P, k, type(getattr(P, k))(float(v)))
CL = []
_init = C.SimCluster.__init__
def keep(self, *x, **k):
    _init(self, *x, **k); CL.append(self)
C.SimCluster.__init__ = keep
_adm = B.Books._admits
seen = {}
def admits(self, book, w, task, *x, **k):
    ok = _adm(self, book, w, task, *x, **k)
    args = (book.processing, book.roots_processing, book.threads, book.roots_untouched,
            book.held + book.estimated, book.cap * self._roots_max)
    if not ok and P.backlogged(*args):
        b = P.BACKLOG_BURST
        P.BACKLOG_BURST = 0
        other = P.backlogged(*args)
        P.BACKLOG_BURST = b
        if not other:
            now = CL[-1].clock.now
            last = seen.get(w); seen[w] = now
            if last is None or now - last > 0.005:
                ws = CL[-1].scheduler.workers[w]
                groups = collections.Counter(key_split(t.key) for t in ws.processing)
                print(f"{now:.3f} {str(w)[-6:]} burst-refused: rp {book.roots_processing} ru "
                      f"{book.roots_untouched} processing {book.processing} held "
                      f"{args[4] / 1e6:.0f} MB slots {args[5] / 1e6:.0f}; "
                      + ", ".join(f"{g[:18]} {n}" for g, n in groups.most_common(4)))
    return ok
B.Books._admits = admits
with open(a.build, "rb") as f:
    dsk, out, took, size = cloudpickle.load(f)
w, t = map(int, a.shape.split("x"))
r = simulate(dsk, keys=out, workers=w, threads_per_worker=t, policy="tidegate",
             sizes=lambda k: size.get(k, 0), durations=lambda k: took.get(k, 1e-3),
             seed=a.seed, bandwidth=1e9, processes=1)
print(f"peaks {[round(p / 1e6) for p in r.peak_memory_per_worker]} makespan {r.makespan:.3f}")
