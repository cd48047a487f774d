"""grp43: where policy.backlogged refuses on a multi-thread worker (BACKLOG_FLIGHT) in one
twin run of a grp27_twin build: time, worker, the book, and the worker's processing tasks
by group (runnable ones: all inputs on the worker) at the first refusal of each episode.

    PYTHONPATH=src python bl_refusals.py FOLDER/gN.pkl WxT SEED [--set NAME=VALUE]
"""
import argparse
import collections

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
    _init(self, *x, **k)
    CL.append(self)


C.SimCluster.__init__ = keep
CUR = [None]
_adm = B.Books._admits


def admits(self, book, w, task, *x, **k):
    CUR[0] = (w, book, task)
    ok = _adm(self, book, w, task, *x, **k)
    if not ok and book.threads > P.BACKLOG_THREADS and P.backlogged(
            book.processing, book.roots_processing, book.threads, book.roots_untouched):
        now = CL[-1].clock.now
        last = seen.get(w)
        seen[w] = now
        if last is None or now - last > 0.005:
            ws = CL[-1].scheduler.workers[w]
            groups = collections.Counter(key_split(t.key) for t in ws.processing)
            print(f"{now:.3f} {str(w)[-6:]} refused: rp {book.roots_processing} ru "
                  f"{book.roots_untouched} processing {book.processing} held "
                  f"{(book.held + book.estimated) / 1e6:.0f} MB; "
                  + ", ".join(f"{g[:18]} {n}" for g, n in groups.most_common(5)))
    return ok


seen = {}
B.Books._admits = admits
with open(a.build, "rb") as f:
    dsk, out, took, size = cloudpickle.load(f)
w, t = map(int, a.shape.split("x"))
r = simulate(dsk, keys=out, workers=w, threads_per_worker=t, policy="tidegate",
             sizes=lambda k: size.get(k, 0), durations=lambda k: took.get(k, 1e-3),
             seed=a.seed, bandwidth=1e9, processes=1)
print(f"peaks {[round(p / 1e6) for p in r.peak_memory_per_worker]} makespan {r.makespan:.3f}")
