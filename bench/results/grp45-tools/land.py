"""grp45: how each chunk load's slot frees in one twin run: landed (why, by which task),
consuming drops, with the time and the root's readers left."""
import argparse, collections
import cloudpickle
import tidegate.books as B
import tidegate.policy as P
import tidegate.sim.cluster as C
from tidegate.sim import simulate
from dask.utils import key_split
ap = argparse.ArgumentParser()
ap.add_argument("build"); ap.add_argument("shape"); ap.add_argument("seed", type=int)
ap.add_argument("--set", action="append", default=[])
ap.add_argument("-n", type=int, default=12)
a = ap.parse_args()
for kv in a.set:
    k, v = kv.split("="); setattr(P, k, type(getattr(P, k))(float(v)))
CL = []
_init = C.SimCluster.__init__
def keep(self, *x, **k):
    _init(self, *x, **k); CL.append(self)
C.SimCluster.__init__ = keep
ev = []
_landed = B.Books._landed
def landed(self, r, live, why, x, sid):
    ev.append((CL[-1].clock.now, "landed", r, why, x))
    return _landed(self, r, live, why, x, sid)
B.Books._landed = landed
_fin = B.Books.on_finished
def fin(self, task, nbytes, inputs, single, feeds, sid=None, pieces=float("nan"), read_on=None):
    for x in inputs:
        if x in self._carriers:
            ev.append((CL[-1].clock.now, "fin", self._carriers[x][0], key_split(task), x,
                       single, read_on is not None))
    return _fin(self, task, nbytes, inputs, single, feeds, sid, pieces, read_on)
B.Books.on_finished = fin
_drop = B.Books._drop_carrier
def drop(self, x, sid, why):
    ev.append((CL[-1].clock.now, "drop", self._carriers[x][0], why, x))
    return _drop(self, x, sid, why)
B.Books._drop_carrier = drop
with open(a.build, "rb") as f:
    dsk, out, took, size = cloudpickle.load(f)
w, t = map(int, a.shape.split("x"))
r = simulate(dsk, keys=out, workers=w, threads_per_worker=t, policy="tidegate",
             sizes=lambda k: size.get(k, 0), durations=lambda k: took.get(k, 1e-3),
             seed=a.seed, bandwidth=1e9, processes=1)
print(f"peaks {[round(p / 1e6) for p in r.peak_memory_per_worker]} makespan {r.makespan:.3f}")
roots = sorted({e[2] for e in ev if key_split(e[2]).startswith("open_dataset")}, key=str)[:a.n]
for root in roots[:0]:
    print("==", str(root)[-40:])
    for e in ev:
        if e[2] == root:
            print(f"  {e[0]:.4f} {e[1]} " + " ".join(
                key_split(v) if isinstance(v, (str, tuple)) and v != root else str(v) for v in e[3:]))
print("summary: root, first fin, landed, why")
for root in sorted({e[2] for e in ev if key_split(e[2]).startswith("open_dataset")}, key=str):
    es = [e for e in ev if e[2] == root]
    fins = [e for e in es if e[1] == "fin"]
    ld = [e for e in es if e[1] in ("landed",)]
    dr = [e for e in es if e[1] == "drop"]
    print(str(root[1:]), f"first {fins[0][0]:.4f} n_fin {len(fins)} landed "
          f"{ld[0][0] if ld else None} {ld[0][3] if ld else ''} drops {len(dr)} last fin {fins[-1][0]:.4f}")
