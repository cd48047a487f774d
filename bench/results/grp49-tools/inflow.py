"""python inflow.py BUILD.pkl WxT SEED WORKER T0 T1 [policy] [NAME=V]: bytes that came into
WORKER between T0 and T1, by group: computed there (task ends) and moved in (transfers)."""
import sys, collections, cloudpickle
from dask.utils import key_split
import tidegate.policy as P
from tidegate.sim import simulate
dsk, out, took, size = cloudpickle.load(open(sys.argv[1], "rb"))
w, t = map(int, sys.argv[2].split("x"))
WK, T0, T1 = sys.argv[4], float(sys.argv[5]), float(sys.argv[6])
pol = sys.argv[7] if len(sys.argv) > 7 else "tidegate"
for kv in sys.argv[8:]:
    n, v = kv.split("="); setattr(P, n, type(getattr(P, n))(float(v)))
r = simulate(dsk, keys=out, workers=w, threads_per_worker=t, policy=pol,
             sizes=lambda k: size.get(k, 0), durations=lambda k: took.get(k, 1e-3),
             seed=int(sys.argv[3]), bandwidth=1e9, outgoing_bandwidth=None, processes=1)
comp = collections.defaultdict(lambda: [0, 0]); moved = collections.defaultdict(lambda: [0, 0])
src = collections.Counter()
for e in r.trace.tasks:
    if e.worker.endswith(WK) and T0 <= e.stop <= T1:
        c = comp[e.group]; c[0] += size.get(e.key, 0) / 1e6; c[1] += 1
for x in r.trace.transfers:
    if x.dest.endswith(WK) and T0 <= x.stop <= T1:
        m = moved[key_split(x.key)]; m[0] += x.nbytes / 1e6; m[1] += 1; src[x.source[-5:]] += x.nbytes / 1e6
print("computed:", {g: (round(a), n) for g, (a, n) in comp.items() if a >= 0.5})
print("moved in:", {g: (round(a), n) for g, (a, n) in moved.items()}, "from", {k: round(v) for k, v in src.items()})
ends = collections.Counter(e.group for e in r.trace.tasks if e.worker.endswith(WK) and T0 <= e.stop <= T1)
print("ended there:", dict(ends))
S = {str(k): k for k in dsk}
mk = {S.get(x.key, x.key) for x in r.trace.transfers if x.dest.endswith(WK) and T0 <= x.stop <= T1 and key_split(x.key) == "open_dataset-u"}
from dask.core import get_dependencies
for k in mk:
    users = [(key_split(d), [key_split(y) for y in get_dependencies(dsk, d)]) for d in dsk if k in get_dependencies(dsk, d)]
    users_k = {str(d) for d in dsk if k in get_dependencies(dsk, d)}
    cons = [(e.group, e.worker[-5:], round(e.start, 3)) for e in r.trace.tasks if e.key in users_k and e.worker.endswith(WK)]
    print("   loaded at", [(e.worker[-5:], round(e.start, 3), round(e.stop, 3)) for e in r.trace.tasks if e.key == str(k)], "consumers all:", collections.Counter((e.group, e.worker[-5:]) for e in r.trace.tasks if e.key in users_k), [(e.group, round(e.start,3)) for e in r.trace.tasks if e.key in users_k and e.worker.endswith(WK)])
    print("moved chunk", str(k)[-8:], "consumers here:", collections.Counter(c[0] for c in cons), "deps of a shuffle-split:", [u for u in users if u[0] == "shuffle-split"][:1])
