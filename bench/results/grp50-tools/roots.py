"""python roots.py BUILD.pkl WxT SEED [NAME=V ...]: tidegate's root starts on each worker
(time, key, the worker's book then: processing / roots processing / untouched / held MB /
cap) and the worker's held MB (twin), with the largest worker's peak time."""
import sys, collections, cloudpickle
from dask.utils import key_split
import tidegate.policy as P
import tidegate.books as B
import tidegate.sim.worker as simworker
from tidegate.sim import simulate

dsk, out, took, size = cloudpickle.load(open(sys.argv[1], "rb"))
w, t = map(int, sys.argv[2].split("x"))
for kv in sys.argv[4:]:
    n, v = kv.split("="); setattr(P, n, type(getattr(P, n))(float(v)))
CLOCK = [None]; WS = {}; PEAK = {}
cls = simworker.SimWorker
h = cls.handle_stimulus
def hs(self, *ev):
    CLOCK[0] = self.clock; WS[self.address] = self
    o = h(self, *ev)
    n = self.state.nbytes
    if n > PEAK.get(self.address, (0,))[0]:
        PEAK[self.address] = (n, self.clock.now)
    return o
cls.handle_stimulus = hs
EV = []
on_run = B.Books.on_run
def run(self, task, wk, root, group, known, stimulus_id=None):
    if root:
        b = self.workers[wk]
        ws = WS.get(wk)
        EV.append((CLOCK[0].now if CLOCK[0] else 0, wk, str(task)[-30:], group, b.processing,
                   b.roots_processing, b.roots_untouched, round((b.held + b.estimated) / 1e6),
                   b.cap, round(ws.state.nbytes / 1e6) if ws else -1,
                   self._cut_groups.get(group, 0),
                   " ".join(f"{a[-2:]}:{x.processing}/{x.roots_processing}/{x.roots_untouched}/{x.owed}/{round((x.held + x.estimated) / 1e6)}"
                            for a, x in sorted(self.workers.items()))))
    return on_run(self, task, wk, root, group, known, stimulus_id)
B.Books.on_run = run
r = simulate(dsk, keys=out, workers=w, threads_per_worker=t, policy="tidegate",
             sizes=lambda k: size.get(k, 0), durations=lambda k: took.get(k, 1e-3),
             seed=int(sys.argv[3]), bandwidth=1e9, outgoing_bandwidth=None, processes=1)
print("makespan", round(r.makespan, 3), "peaks", {a[-5:]: (round(p / 1e6), round(tm, 3))
                                                  for a, (p, tm) in sorted(PEAK.items())})
print("time worker key group | proc rproc untouched held cap | twinMB cuts")
for e in EV:
    if e[3].startswith("open_dataset") or e[0] < float(__import__("os").environ.get("ALL_BEFORE", "0")):
        print(f"{e[0]:.3f} {e[1][-5:]} {e[2]:30s} {e[3][:16]:16s} | {e[4]:3d} {e[5]} {e[6]} "
              f"{e[7]:4d} {e[8]} | {e[9]:4d} {e[10]} || {e[11]}")
print("other roots:", collections.Counter(e[3] for e in EV if not e[3].startswith("open_dataset")))
