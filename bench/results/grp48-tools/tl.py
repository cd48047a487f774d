"""python tl.py BUILD.pkl WxT SEED POLICY: the peak worker's timeline: held MB, tasks processing
(by kind), root loads started, every 50 ms and at each load's start."""
import sys, collections, cloudpickle
sys.path.insert(0, "/work/wt/grp48/bench")
import twin_peaks
from dask.utils import key_split
from tidegate.sim import simulate
dsk, out, took, size = cloudpickle.load(open(sys.argv[1], "rb"))
w, t = map(int, sys.argv[2].split("x"))
TL = collections.defaultdict(list)
def snapshot(ws):
    return ()
import tidegate.sim.worker as simworker
cls = simworker.SimWorker
h = cls.handle_stimulus
def hs(self, *ev):
    o = h(self, *ev)
    st = self.state
    ex = sum(1 for ts in st.tasks.values() if ts.state in ("executing", "ready", "constrained"))
    loads = sum(1 for ts in st.tasks.values() if ts.state == "executing" and key_split(ts.key).startswith("open_dataset"))
    stores = sum(1 for ts in st.tasks.values() if ts.state in ("executing", "ready") and key_split(ts.key).startswith("store"))
    TL[self.address].append((self.clock.now, st.nbytes / 1e6, ex, loads, stores))
    return o
cls.handle_stimulus = hs
r = simulate(dsk, keys=out, workers=w, threads_per_worker=t, policy=sys.argv[4],
             sizes=lambda k: size.get(k, 0), durations=lambda k: took.get(k, 1e-3),
             seed=int(sys.argv[3]), bandwidth=1e9, outgoing_bandwidth=None, processes=1)
top = max(TL, key=lambda a: max(x[1] for x in TL[a]))
print(sys.argv[4], "makespan", r.makespan, "peaks", [round(max(x[1] for x in TL[a])) for a in sorted(TL)])
for a in sorted(TL):
    line = []
    nxt = 0
    for x in TL[a]:
        if x[0] >= nxt:
            line.append(f"{x[0]:.2f}:{x[1]:.0f}/{x[2]}/{x[3]}/{x[4]}")
            nxt = x[0] + 0.1
    print(a[-5:], "*" if a == top else " ", " ".join(line))
