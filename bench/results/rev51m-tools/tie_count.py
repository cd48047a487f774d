import sys, collections
sys.argv = ["x", "32", "8x2"]
from tidegate.distributed import placement as PL
orig = PL.Placement._fewer_readers
moved = collections.Counter()
def wrapped(self, ts, local, addr):
    out = orig(self, ts, local, addr)
    if out != addr:
        moved[(addr, out)] += 1
    return out
PL.Placement._fewer_readers = wrapped
import tidegate.policy as P
from tidegate.sim import simulate
exec(open("/tmp/rev51m/tie.py").read().split("for v in")[0])
P.TIE_FEWER_READERS = 1
r = simulate(dsk, keys=keys, sizes=lambda k: size[k[0]], durations=lambda k: dur[k[0]],
             policy="tidegate", workers=w, threads_per_worker=t, seed=0, record_memory=False, processes=1)
print(r.makespan, sum(moved.values()), "overrides:", dict(collections.Counter(b for a, b in moved.elements())))
