"""python dayslices.py BUILD.pkl WxT SEED LAST [NAME=V ...]: tidegate's placement of the day
slices (tasks reading an input read by 60+) of the last LAST months' climatology: per call,
the plugin's answer, dask's own decide_worker_non_rootish answer then, and each worker's
dask occupancy / processing count (grp49b: the 2 x 4 last stretch)."""
import collections
import sys

import cloudpickle

import tidegate.policy as P
from tidegate.distributed import placement as PL
from tidegate.sim import simulate

dsk, out, took, size = cloudpickle.load(open(sys.argv[1], "rb"))
w, t = map(int, sys.argv[2].split("x"))
LAST = int(sys.argv[4])
for kv in sys.argv[5:]:
    n, v = kv.split("=")
    setattr(P, n, type(getattr(P, n))(float(v)))
calls = []
orig = PL.Placement._decide_worker_non_rootish


def spy(self, ts):
    ws = orig(self, ts)
    big = [d for d in ts.dependencies if len(d.dependents) >= 60 and d.nbytes > 1e5]
    if big and ws is not None:
        dk = self._orig["decide_worker_non_rootish"](ts)
        occ = {x.address.split("-")[-1][:2]: (round(x.occupancy, 3), len(x.processing))
               for x in self.scheduler.workers.values()}
        calls.append((str(big[0].key), ts.key, ws.address.split("-")[-1][:2],
                      dk.address.split("-")[-1][:2] if dk else None,
                      [h.address.split("-")[-1][:2] for h in big[0].who_has], occ))
    return ws


PL.Placement._decide_worker_non_rootish = spy
r = simulate(dsk, keys=out, workers=w, threads_per_worker=t, policy="tidegate",
             sizes=lambda k: size.get(k, 0), durations=lambda k: took.get(k, 1e-3),
             seed=int(sys.argv[3]), bandwidth=1e9, outgoing_bandwidth=None, processes=1)
print("tidegate makespan %.3f" % r.makespan)
at = {e.key: e for e in r.trace.tasks}
by = collections.defaultdict(list)
for c in calls:
    by[c[0]].append(c)
months = sorted(by, key=lambda k: at[k].stop if k in at else 0)[-LAST:]
for m in months:
    cs = by[m]
    print(f"input {m[:50]} on {cs[0][4]} ends {at[m].stop:.3f}: plugin "
          f"{dict(collections.Counter(c[2] for c in cs))} dask "
          f"{dict(collections.Counter(c[3] for c in cs))}")
    for c in cs[:3] + cs[-2:]:
        print("   ", c[2], c[3], c[5])
