"""(cpu35, session 35) Per-call plugin bytecodes of chosen methods, with outcomes.
python ev.py WORKLOAD SCALE WORKERS"""
import sys, os, collections
from tidegate.sim import simulate
from tidegate.sim.model import build_model
from tidegate.sim.workloads import build
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import plugin_ops  # noqa: E402
from tidegate.distributed import placement, admission, hooks, broadcast
name, scale, workers = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
w = build(name, int(plugin_ops.STEPS[name] * scale), 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
mine = {}
n = [0, 0]
def local(frame, event, arg):
    if event == "opcode":
        n[0] += 1
        if mine[frame.f_code]:
            n[1] += 1
    return local
def call(frame, event, arg):
    code = frame.f_code
    p = mine.get(code)
    if p is None:
        p = mine[code] = plugin_ops.in_plugin(code)
    frame.f_trace_opcodes = True
    frame.f_trace_lines = False
    return local
recs = []
P = hooks.Plugin
orig_place = P._place
def _place(self, ts, stimulus_id=None):
    owed = ts.key in self.books.owed
    a = n[1]
    del path[:]
    w = self.books.owed.get(ts.key, (None,))[0]
    bk = self.books.workers.get(w)
    st = None if bk is None else (bk.roots_processing, bk.roots_untouched, bk.owed, bk.cap,
                                  bk.processing, bk.threads, bk.passes, bk.version)
    out = orig_place(self, ts, stimulus_id)
    last = self.books.log[-1][1:3] if self.books.log else None
    recs.append(("place", ts.key, owed, out[0] is not None, n[1] - a, last, tuple(path), st,
                 stimulus_id))
    return out
P._place = _place
path = []
for nmx in ("_unknown_pass", "_first_share", "_owed_place", "_decide", "_waits_again",
            "_still_withheld"):
    def mk(nmx=nmx, f=getattr(P, nmx)):
        def g(self, *a, **k):
            out = f(self, *a, **k)
            path.append((nmx, None if out is None else (out[0] is not None)))
            return out
        return g
    setattr(P, nmx, mk())
from tidegate import books as books_mod
obp = books_mod.Books.place
def bkplace(self, task, *a, **k):
    out = obp(self, task, *a, **k)
    path.append(("books.place", out is not None))
    return out
books_mod.Books.place = bkplace
orig_poke = P._poke
def _poke(self, s, sid):
    a = n[1]
    out = orig_poke(self, s, sid)
    kind = sid.split("-")[1] if sid.startswith("tidegate") else sid[:12]
    recs.append(("poke", kind, None, None, n[1] - a, None))
    return out
P._poke = _poke
orig_bp = broadcast.Broadcast.place
def bplace(self, s, ts, *a, **k):
    b = n[1]
    out = orig_bp(self, s, ts, *a, **k)
    recs.append(("bplace", ts.key, None, out is not None, n[1] - b, None))
    return out
broadcast.Broadcast.place = bplace
olh = P._look_held
def lh(self, s, ts, looked, examined, kept=None):
    b = n[1]
    out = olh(self, s, ts, looked, examined, kept)
    recs.append(("look_held", out[0] is not None, out[1] - looked, out[2] - examined, n[1] - b,
                 ts is None))
    return out
P._look_held = lh
ocov = P._covered
def cov(self, s, blocked):
    out = ocov(self, s, blocked)
    size = len(out) if out not in (False, None) else None
    recs.append(("covered", out is not False, size, len(self._copies), None, None))
    return out
P._covered = cov
with plugin_ops.tracing(call):
    r = simulate(model, workers=workers, threads_per_worker=4, policy="tidegate",
                 bandwidth="1GB/s", record_memory=False)
T = len(r.trace.tasks)
import pickle
pickle.dump({"T": T, "recs": recs, "n": n}, open(os.environ.get("EV_OUT", "/tmp/ev.pkl"), "wb"))
print("tasks", T, "plugin/task", n[1] / T, "all/task", n[0] / T)
