"""TIE_FEWER_READERS probe: C_i = add(M_i, F_i), M_i a root load read by C_i and E_i
(2 readers), F_i a piece of one big root R (1 reader), all F on R's worker; equal bytes."""
import sys, operator
import tidegate.policy as P
from tidegate.sim import simulate

def f(*a): return None

n = int(sys.argv[1]) if len(sys.argv) > 1 else 16
shape = sys.argv[2] if len(sys.argv) > 2 else "4x2"
w, t = map(int, shape.split("x"))
dsk = {("R", 0): (f,)}
keys = []
for i in range(n):
    dsk[("F", i)] = (f, ("R", 0))
    dsk[("M", i)] = (f,)
    dsk[("E", i)] = (f, ("M", i))
    dsk[("C", i)] = (f, ("M", i), ("F", i))
    keys += [("C", i), ("E", i)]
size = {"R": 100e6 * n, "F": 100e6, "M": 100e6, "E": 1e3, "C": 1e3}
dur = {"R": 1.0, "F": 0.05, "M": 1.0, "E": 0.1, "C": 1.0}
for v in (0, 1):
  if True:
    P.TIE_FEWER_READERS = v
    for seed in (0, 1):
        r = simulate(dsk, keys=keys, sizes=lambda k: size[k[0]], durations=lambda k: dur[k[0]],
                     policy="tidegate", workers=w, threads_per_worker=t, seed=seed,
                     record_memory=False, processes=1)
        print(f"TIE={v} seed={seed} time {r.makespan:.3f} peak {[int(p/1e6) for p in r.peak_memory_per_worker]} moved {r.bytes_transferred/1e6:.0f} MB")
r = simulate(dsk, keys=keys, sizes=lambda k: size[k[0]], durations=lambda k: dur[k[0]],
             policy="queue", workers=w, threads_per_worker=t, seed=0, record_memory=False, processes=1)
print(f"queue time {r.makespan:.3f} peak {[int(p/1e6) for p in r.peak_memory_per_worker]} moved {r.bytes_transferred/1e6:.0f} MB")
