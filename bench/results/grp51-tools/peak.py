"""python peak.py BUILD.pkl WxT SEED [NAME=V ...]: for queue and tidegate, the largest worker's
peak: when, and what it held then by group (MB, count), plus its processing by group."""
import sys, collections, cloudpickle
sys.path.insert(0, "/work/wt/grp51/bench")
import twin_peaks
from dask.utils import key_split
import tidegate.policy as P
from tidegate.sim import simulate

dsk, out, took, size = cloudpickle.load(open(sys.argv[1], "rb"))
w, t = map(int, sys.argv[2].split("x"))
for kv in sys.argv[4:]:
    n, v = kv.split("="); setattr(P, n, type(getattr(P, n))(float(v)))

def snapshot(ws):
    st = ws.state
    held = collections.defaultdict(lambda: [0, 0])
    for k, ts in st.tasks.items():
        if ts.state == "memory":
            g = key_split(k); held[g][0] += (ts.nbytes or 0) / 1e6; held[g][1] += 1
    proc = collections.Counter(key_split(k) for k, ts in st.tasks.items()
                               if ts.state in ("executing", "ready", "constrained"))
    return ({g: (round(a), c) for g, (a, c) in held.items()}, dict(proc))

for pol in ("queue", "tidegate"):
    with twin_peaks.watch_workers(snapshot, lambda w, k: None) as snap:
        r = simulate(dsk, keys=out, workers=w, threads_per_worker=t, policy=pol,
                     sizes=lambda k: size.get(k, 0), durations=lambda k: took.get(k, 1e-3),
                     seed=int(sys.argv[3]), bandwidth=1e9, outgoing_bandwidth=None, processes=1)
        snaps = dict(snap)
    top = max(snaps, key=lambda a: snaps[a][0])
    n, when, held, proc = snaps[top]
    print(pol, f"peak {n/1e6:.0f} MB at {when:.3f}s makespan {r.makespan:.3f}",
          [round(p / 1e6) for p in r.peak_memory_per_worker])
    for g, v in sorted(held.items(), key=lambda x: -x[1][0]):
        if v[0] >= 1: print("   held", g[:40], v)
    print("   processing", proc)
