"""python carriers.py BUILD.pkl WxT SEED WORKER T0 T1 [NAME=V ...]: the untouched carriers on
WORKER (books' _live/_carriers) at each root start between T0 and T1, with the twin state of
their dependents."""
import sys, cloudpickle
from dask.utils import key_split
import tidegate.policy as P
import tidegate.books as B
import tidegate.sim.worker as simworker
from tidegate.sim import simulate
dsk, out, took, size = cloudpickle.load(open(sys.argv[1], "rb"))
w, t = map(int, sys.argv[2].split("x"))
WK, T0, T1 = sys.argv[4], float(sys.argv[5]), float(sys.argv[6])
for kv in sys.argv[7:]:
    n, v = kv.split("="); setattr(P, n, type(getattr(P, n))(float(v)))
CLOCK = [None]
cls = simworker.SimWorker
h = cls.handle_stimulus
def hs(self, *ev):
    CLOCK[0] = self.clock
    return h(self, *ev)
cls.handle_stimulus = hs
import tidegate.sim as S
SCHED = []
last = [-1]
on_finished = B.Books.on_finished
def fin(self, task, *a, **k):
    o = on_finished(self, task, *a, **k)
    now = CLOCK[0].now if CLOCK[0] else 0
    if T0 <= now <= T1 and now - last[0] > 0.04:
        last[0] = now
        for wa, b in self.workers.items():
            if not wa.endswith(WK): continue
            print(f"t={now:.3f} {wa[-5:]} proc {b.processing} rproc {b.roots_processing} untouched {b.roots_untouched} held {round(b.held/1e6)}")
            for c, (r, nb) in self._carriers.items():
                live = self._live.get(r)
                if live and live[0] == wa and c not in self._passed:
                    print("    carrier", key_split(c), str(c)[-12:], "root", key_split(r), round(nb / 1e6, 1))
    return o
B.Books.on_finished = fin
r = simulate(dsk, keys=out, workers=w, threads_per_worker=t, policy="tidegate",
             sizes=lambda k: size.get(k, 0), durations=lambda k: took.get(k, 1e-3),
             seed=int(sys.argv[3]), bandwidth=1e9, outgoing_bandwidth=None, processes=1)
