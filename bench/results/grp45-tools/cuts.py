import sys, cloudpickle
import tidegate.books as B
from tidegate.sim import simulate
BK = []
_i = B.Books.__init__
def init(self, *a, **k):
    _i(self, *a, **k); BK.append(self)
B.Books.__init__ = init
dsk, out, took, size = cloudpickle.load(open(sys.argv[1], "rb"))
w, t = map(int, sys.argv[2].split("x"))
r = simulate(dsk, keys=out, workers=w, threads_per_worker=t, policy="tidegate",
             sizes=lambda k: size.get(k, 0), durations=lambda k: took.get(k, 1e-3),
             seed=int(sys.argv[3]), bandwidth=1e9, processes=1)
print([round(p/1e6) for p in r.peak_memory_per_worker], r.makespan, [(b.cuts_max, b._cut_groups) for b in BK])
