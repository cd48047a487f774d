import collections, re, sys
import cloudpickle
from dask.utils import key_split
from tidegate.sim import simulate
g, seed, shape, t0, t1 = sys.argv[1], int(sys.argv[2]), sys.argv[3], float(sys.argv[4]), float(sys.argv[5])
dsk, out, took, size = cloudpickle.load(open(f"/tmp/grp35/roll/{g}.pkl", "rb"))
w, t = map(int, shape.split("x"))
r = simulate(dsk, keys=out, workers=w, threads_per_worker=t, policy="tidegate",
             sizes=lambda k: size.get(k, 0), durations=lambda k: took.get(k, 1e-3),
             seed=seed, bandwidth=1e9, record_memory=True)
tr = r.trace
def short(k):
    s = str(k); m = re.findall(r", (\d+)", s)
    return key_split(k)[:22] + "(" + ",".join(m) + ")"
ev = [(m.time, "M", f"{m.worker[-4:-2]} {m.held/1e6:.0f} MB rif {m.roots_in_flight}") for m in tr.memory if t0 <= m.time <= t1]
ev += [(x.start, "T", f"{x.worker[-4:-2]} t{x.thread} {x.start:.3f}-{x.stop:.3f} {short(x.key)} {x.nbytes/1e6:.1f}") for x in tr.tasks if t0 <= x.start <= t1 and (x.stop - x.start > 0.01 or x.nbytes > 3e6)]
ev += [(x.start, "X", f"{x.source[-4:-2]}->{x.dest[-4:-2]} {short(x.key)} {x.nbytes/1e6:.1f}") for x in tr.transfers if t0 <= x.start <= t1]
for e in sorted(ev):
    print(f"{e[0]:.3f} {e[1]} {e[2]}")
