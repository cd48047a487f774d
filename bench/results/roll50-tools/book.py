"""python book.py BUILD.pkl WxT SEED T0 T1 [NAME=V ...]: tidegate's books of every worker at
each _admits call between T0 and T1 (time, worker asked, root asked, answer; each worker's
processing / roots processing / untouched / owed / passes / held MB / cap), and each
worker's threads busy at that instant (twin): why a thread idles while roots wait."""
import sys

import cloudpickle

import tidegate.books as B
import tidegate.policy as P
import tidegate.sim.worker as simworker
from tidegate.sim import simulate
import os  # noqa: E402
for _p in filter(None, os.environ.get("PATCH", "").split(",")):  # roll50: prototypes
    exec(open(_p).read(), {"__name__": "patch"})

dsk, out, took, size = cloudpickle.load(open(sys.argv[1], "rb"))
w, t = map(int, sys.argv[2].split("x"))
T0, T1 = float(sys.argv[4]), float(sys.argv[5])
for kv in sys.argv[6:]:
    n, v = kv.split("=")
    setattr(P, n, type(getattr(P, n))(float(v)))
CLOCK = [None]
WS = {}
cls = simworker.SimWorker
h = cls.handle_stimulus


def hs(self, *ev):
    CLOCK[0] = self.clock
    WS[self.address] = self
    return h(self, *ev)


cls.handle_stimulus = hs
_adm = B.Books._admits
last = [None]
NAMES = {}


def short(k):
    from dask.utils import key_split
    import ast
    try:
        kk = ast.literal_eval(str(k))
    except (ValueError, SyntaxError):
        kk = k
    idx = kk[1:] if isinstance(kk, tuple) else ()
    return key_split(kk)[:10] + str(tuple(idx)).replace(" ", "")


def NM(a):
    return NAMES.setdefault(a, f"w{len(NAMES)}")




def admits(self, book, wk, task, *x, **k):
    ok = _adm(self, book, wk, task, *x, **k)
    now = CLOCK[0].now if CLOCK[0] else 0.0
    if T0 <= now <= T1:
        line = " ".join(
            f"{NM(a)}:{b.processing}/{b.roots_processing}/{b.roots_untouched}/{b.owed}/"
            f"{b.passes}/{round((b.held + b.estimated) / 1e6)}"
            f"[{len(WS[a].state.executing) if a in WS else -1}]"
            for a, b in sorted(self.workers.items()))
        s = f"{NM(wk)} {short(task):16s} {'ok' if ok else 'no'} || {line}"
        if s != last[0]:
            print(f"{now:.3f} {s}")
            last[0] = s
    return ok


B.Books._admits = admits
r = simulate(dsk, keys=out, workers=w, threads_per_worker=t, policy="tidegate",
             sizes=lambda k: size.get(k, 0), durations=lambda k: took.get(k, 1e-3),
             seed=int(sys.argv[3]), bandwidth=1e9, outgoing_bandwidth=None, processes=1)
print("makespan", round(r.makespan, 3), "(books: proc/rproc/untouched/owed/passes/MB[executing])")
