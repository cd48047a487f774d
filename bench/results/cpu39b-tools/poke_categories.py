"""(cpu39b, session 39) Admission._poke calls by what they did (the placement calls they made,
in the order those returned, and whether the call changed nothing: noop_calls.py's test),
with inclusive bytecodes (all code they ran, dask's too); and, where _still_withheld
answered None, which of its first tests failed.

    PYTHONHASHSEED=0 PYTHONPATH=src python bench/results/cpu39b-tools/poke_categories.py WORKLOAD SCALE"""
import collections, sys, os
sys.path.insert(0, "bench")
import plugin_ops
from tidegate.distributed import admission, placement
from tidegate import books as bm
from tidegate.sim import simulate
from tidegate.sim.model import build_model
from tidegate.sim.workloads import build
name, scale = sys.argv[1], float(sys.argv[2])
A = admission.Admission; P = placement.Placement
started = [0]
cur = [None]; ops = [0]; inpoke = [False]
cat_ops = collections.Counter(); cat_n = collections.Counter()
why = collections.Counter()
def psnap(self, s):
    return (len(s.queued), self._ready.added, len(self._parked), self._blocked,
            self._stalled, self._wave is not None, self._epoch, len(self._open),
            len(self._free), len(self._copies._entry))
orig_poke = A._poke
def _poke(self, s, sid):
    before = psnap(self, s); n0 = started[0]
    cur[0] = []; ops[0] = 0; inpoke[0] = True
    r = orig_poke(self, s, sid)
    inpoke[0] = False
    ev, cur[0] = cur[0], None
    k = ("same" if started[0] == n0 and psnap(self, s) == before else "changed", tuple(ev[:4]))
    cat_ops[k] += ops[0]; cat_n[k] += 1
    return r
def wrap(cls, n):
    o = getattr(cls, n)
    def w(*a, **k):
        r = o(*a, **k)
        if cur[0] is not None: cur[0].append((n, "None" if r is None else ("addr" if (r[0] if isinstance(r, tuple) else r) is not None else "refused")))
        return r
    setattr(cls, n, w)
for n in ("_still_withheld", "_owed_place", "_decide", "_waits_again"): wrap(P, n)
wrap(bm.Books, "place")
osw = P._still_withheld
def sw(self, ts, withheld, sid):
    r = osw(self, ts, withheld, sid)
    if r is None and cur[0] is not None:
        _, entry, lacks, further, first = withheld
        books = self.books
        why[(not self._free, bool(self._idle), bool(books.changed), ts.key in books.owed, self._kept_walk(ts) is not entry)] += 1
    return r
P._still_withheld = sw
orig_start = P._start
def _start(self, *a, **k):
    started[0] += 1
    return orig_start(self, *a, **k)
A._poke = _poke; P._start = _start
def local(frame, event, arg):
    if event == "opcode" and inpoke[0]: ops[0] += 1
    return local
def call(frame, event, arg):
    frame.f_trace_opcodes = True; frame.f_trace_lines = False
    return local
w = build(name, int(plugin_ops.STEPS[name] * scale), 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
with plugin_ops.tracing(call):
    r = simulate(model, workers=100, threads_per_worker=4, policy="tidegate", bandwidth="1GB/s", record_memory=False)
T = len(r.trace.tasks)
for k, v in sorted(cat_ops.items(), key=lambda kv: -kv[1])[:14]:
    print(f"{v/T:7.1f} a task  {cat_n[k]/T:.3f} calls  {v/cat_n[k]:7.0f} a call", k)
print("still_withheld None (no free, idle, changed, owed, walk moved):", why)
