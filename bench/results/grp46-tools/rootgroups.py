import sys, collections, cloudpickle
import tidegate.books as B
from tidegate.sim import simulate
C = collections.Counter()
_r = B.Books.on_run
def on_run(self, task, w, root, group, known, stimulus_id=None):
    if root:
        C[group[:40]] += 1
    return _r(self, task, w, root, group, known, stimulus_id)
B.Books.on_run = on_run
dsk, out, took, size = cloudpickle.load(open(sys.argv[1], "rb"))
w, t = map(int, sys.argv[2].split("x"))
r = simulate(dsk, keys=out, workers=w, threads_per_worker=t, policy="tidegate",
             sizes=lambda k: size.get(k, 0), durations=lambda k: took.get(k, 1e-3),
             seed=int(sys.argv[3]), bandwidth=1e9, processes=1)
print(C)
