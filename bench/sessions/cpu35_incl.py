"""(cpu35, session 35) Inclusive plugin bytecodes per task, per function, on the twin (as
plugin_ops.count).
python incl.py WORKLOAD SCALE WORKERS [N] [--caller FUNCNAME]"""
import sys, os, collections
from tidegate.sim import cluster as sim_cluster
from tidegate.sim import simulate
from tidegate.sim.model import build_model
from tidegate.sim.workloads import build
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import plugin_ops  # noqa: E402
name, scale, workers = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
N = int(sys.argv[4]) if len(sys.argv) > 4 else 60
callee_of = sys.argv[5] if len(sys.argv) > 5 else None
PLUGIN = plugin_ops.PLUGIN
w = build(name, int(plugin_ops.STEPS[name] * scale), 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
mine = {}
incl = collections.Counter(); own = collections.Counter(); calls = collections.Counter()
edge = collections.Counter()
byroot = collections.Counter()  # (caller, callee) inclusive ops of callee under caller
stacks = {}
tot = [0, 0]
def nm(c): return f"{os.path.basename(c.co_filename)}:{c.co_firstlineno} {c.co_qualname}"
from tidegate.distributed import broadcast as _bc
ON = [not os.environ.get("READERS")]
_obp = _bc.Broadcast.place
def _bp(self, *a, **k):
    ON[0] = True
    return _obp(self, *a, **k)
_bc.Broadcast.place = _bp if os.environ.get("READERS") else _obp
if os.environ.get("AGAIN"):
    from tidegate.distributed import hooks as _hk
    _op = _hk.Plugin._place
    _seen = set()
    def _pl(self, ts, sid=None):
        again = ts.key in _seen
        _seen.add(ts.key)
        ON[0] = again
        try:
            return _op(self, ts, sid)
        finally:
            ON[0] = False
    _hk.Plugin._place = _pl
    ON[0] = False
def local(frame, event, arg):
    if event == "opcode" and ON[0]:
        tot[0] += 1
        st = stacks.get(frame)
        if st is not None:
            tot[1] += st[2]
            for c in st[0]:
                incl[c] += 1
            for e in st[1]:
                edge[e] += 1
            if st[2]:
                r = st[0][0] if st[0] else None
                for c in st[0]:
                    byroot[(r, c)] += 1
            if st[2]:
                own[frame.f_code] += 1
    elif event == "return":
        stacks.pop(frame, None)
    return local
def call(frame, event, arg):
    code = frame.f_code
    p = mine.get(code)
    if p is None:
        p = mine[code] = any(s in code.co_filename for s in PLUGIN)
    parent = stacks.get(frame.f_back)
    pset, pedges, _, last = parent if parent is not None else ((), (), 0, None)
    if p:
        calls[code] += 1
        s = pset if code in pset else pset + (code,)
        e = pedges
        if last is not None:
            ed = (last, code)
            if ed not in pedges:
                e = pedges + (ed,)
        stacks[frame] = (s, e, 1, code)
    else:
        stacks[frame] = (pset, pedges, 0, last)
    frame.f_trace_opcodes = True
    frame.f_trace_lines = False
    return local
original = sim_cluster.SimCluster.scheduler_work
def traced(cluster, fn, *args, **kwargs):
    def run(*a):
        sys.settrace(call)
        try:
            return fn(*a)
        finally:
            sys.settrace(None)
            stacks.clear()
    original(cluster, run, *args, **kwargs)
sim_cluster.SimCluster.scheduler_work = traced
r = simulate(model, workers=workers, threads_per_worker=4, policy="tidegate", bandwidth="1GB/s",
             record_memory=False)
T = len(r.trace.tasks)
print(f"tasks {T} ops/task {tot[0]/T:.1f} plugin(own) {tot[1]/T:.1f}")
for c, v in incl.most_common(N):
    print(f"{v/T:9.1f} incl {own[c]/T:8.1f} own {calls[c]/T:6.2f} calls  {nm(c)}")
import pickle
pickle.dump({"T": T, "incl": {nm(c): v for c, v in incl.items()},
             "own": {nm(c): v for c, v in own.items()},
             "calls": {nm(c): v for c, v in calls.items()},
             "byroot": {(nm(a), nm(b)): v for (a, b), v in byroot.items()},
             "edge": {(nm(a), nm(b)): v for (a, b), v in edge.items()}},
  open(os.environ.get("INCL_OUT", "/tmp/incl.pkl"), "wb"))
if callee_of:
    print("--- callees of", callee_of)
    for (a, b), v in edge.most_common():
        if callee_of in nm(a):
            print(f"{v/T:9.1f} {calls[b]/T:6.2f}  {nm(b)}")
    print("--- callers of", callee_of)
    for (a, b), v in edge.most_common():
        if callee_of in nm(b):
            print(f"{v/T:9.1f}  {nm(a)}")
