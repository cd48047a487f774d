import sys
from tidegate import policy
from tidegate.sim import simulate
from tidegate.sim.workloads import build
from tidegate.distributed import placement as P, admission as A
name, steps, shape = sys.argv[1], int(sys.argv[2]), sys.argv[3]
for a in sys.argv[4:]:
    k, v = a.split("="); setattr(policy, k, eval(v))
orig = P.Placement._decide
def _decide(self, ts, stimulus_id=None):
    out = orig(self, ts, stimulus_id)
    print("DECIDE", ts.key, "->", out, "sid", stimulus_id)
    return out
P.Placement._decide = _decide
ofs = A.Admission._first_split
def fs(self, s, sid):
    print("FIRST_SPLIT", sid, [t.key for t in self._first_parked], {t.key: v for t, v in self._parked.items()})
    return ofs(self, s, sid)
A.Admission._first_split = fs
ob = __import__("tidegate.books", fromlist=["Books"]).Books
op = ob.place
def place(self, task, *a, **kw):
    out = op(self, task, *a, **kw)
    if not a[2]:  # no partners
        print("  PLACE", task, "cands", list(a[3]) if isinstance(a[3], list) else "...", "->", out)
    return out
ob.place = place
W, T = map(int, shape.split("x"))
r, = simulate(build(name, steps, 190e6, store=True).model(), workers=W, threads_per_worker=T, seed=0, policy=["tidegate"], record_memory=False, processes=1)
print("makespan", round(r.makespan, 3))
