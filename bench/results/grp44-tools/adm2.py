"""grp43: every root admission (may_admit_root answering yes) in one twin run of a
grp27_twin build: time, worker, why (idle / beside / under the count / by a pass), the
worker's book (roots processing, untouched, owed, processing, held MB) at that moment.

    PYTHONPATH=src python adm_trace.py FOLDER/gN.pkl WxT SEED [--set NAME=VALUE]
"""
import argparse
import collections

import cloudpickle

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
log = []
_may = B.may_admit_root


def may(rp, ru, cap, cc, held, est, budget, idle, owed=0, beside=False, queued=0, passes=0,
        pass_cap=float("inf"), backlogged=False):
    ok = _may(rp, ru, cap, cc, held, est, budget, idle, owed, beside, queued, passes,
              pass_cap, backlogged)
    if ok:
        why = ("idle" if idle else "beside" if beside and rp + ru + owed >= cap else
               "count" if rp + ru + owed < cap else "pass")
        log.append((CL[-1].clock.now, why, rp, ru, owed, cap, held / 1e6, passes) + CUR[0]
                   + (CUR[1],))
    return ok


B.may_admit_root = may
CUR = [None, 0]
_adm = B.Books._admits


def admits(self, book, w, task, *x, **k):
    CUR[0] = (w, book.processing, book.threads, task)
    CUR[1] = self._roots_max * book.cap / 1e6
    return _adm(self, book, w, task, *x, **k)


B.Books._admits = admits
# Which worker ran which root: the scheduler's processing transitions.
with open(a.build, "rb") as f:
    dsk, out, took, size = cloudpickle.load(f)
w, t = map(int, a.shape.split("x"))
r = simulate(dsk, keys=out, workers=w, threads_per_worker=t, policy="tidegate",
             sizes=lambda k: size.get(k, 0), durations=lambda k: took.get(k, 1e-3),
             seed=a.seed, bandwidth=1e9, processes=1, record_memory=True)
print(f"peaks {[round(p / 1e6) for p in r.peak_memory_per_worker]} makespan {r.makespan:.3f}")
print(collections.Counter(x[1] for x in log))
for x in log:
    print(f"{x[0]:.3f} {str(x[8])[-6:]} {x[1]:6s} rp {x[2]} ru {x[3]} owed {x[4]} cap {x[5]} "
          f"held {x[6]:.0f} slots {x[12]:.0f} passes {x[7]} processing {x[9]} {str(x[11])[-12:]}")
