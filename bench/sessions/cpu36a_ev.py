"""(cpu36a, session 36) Per-call bytecodes, all code (dask's too), of chosen plugin methods in
the twin's scheduler work, by method, its two nearest wrapped callers, and an outcome tag.
The wrappers' own bytecodes (~40 a call) are counted too: compare calls, not totals.
python bench/sessions/cpu36a_ev.py WORKLOAD SCALE WORKERS"""
import sys, os, collections
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import plugin_ops
from tidegate.sim import simulate
from tidegate.sim.model import build_model
from tidegate.sim.workloads import build
from tidegate.distributed import placement, admission, hooks, broadcast, held as heldmod
from dask.utils import key_split
name, scale, workers = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
w = build(name, int(plugin_ops.STEPS[name] * scale), 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
n = [0]
def local(frame, event, arg):
    if event == "opcode":
        n[0] += 1
    return local
def call(frame, event, arg):
    frame.f_trace_opcodes = True
    frame.f_trace_lines = False
    return local
agg = collections.defaultdict(lambda: [0, 0])
stack = []
def wrap(cls, meth, tagf=None):
    f = getattr(cls, meth)
    def g(*a, **k):
        b = n[0]
        stack.append(meth)
        try:
            out = f(*a, **k)
        finally:
            stack.pop()
        tag = tagf(a, k, out) if tagf else None
        parent = "/".join(stack[-2:]) if stack else "-"
        r = agg[(meth, parent, tag)]
        r[0] += 1; r[1] += n[0] - b
        return out
    setattr(cls, meth, g)
P = hooks.Plugin
def tsk(i):
    return lambda a, k, out: key_split(a[i].key)
wrap(broadcast.Broadcast, "place", lambda a, k, out: (key_split(a[2].key), out is not None))
wrap(P, "_start", lambda a, k, out: key_split(a[1].key))
wrap(P, "_place", lambda a, k, out: (key_split(a[1].key), out[0] is not None))
wrap(P, "_look_held", lambda a, k, out: (out[0] is not None))
wrap(P, "_poke", lambda a, k, out: a[2].split("-")[0] + "-" + a[2].split("-")[1])
wrap(P, "transition", lambda a, k, out: (a[2], a[3]))
wrap(P, "_decide_worker")
wrap(P, "_is_rootish")
wrap(heldmod.Held, "park")
wrap(heldmod.Held, "discard")
wrap(heldmod.Held, "first")
wrap(P, "_refresh")
wrap(P, "_update")
wrap(P, "_tick")
wrap(heldmod.Held, "hold_stamped")
wrap(heldmod.Held, "skip")
wrap(P, "_refresh_all")
wrap(P, "_owed_first")
wrap(P, "_split")
wrap(P, "_wake")
wrap(P, "_covered")
wrap(broadcast.Broadcast, "gate", lambda a, k, out: out)
wrap(broadcast.Broadcast, "_allowed", lambda a, k, out: bool(out))
wrap(broadcast.Broadcast, "_flight")
wrap(P, "_decide_worker_non_rootish")
wrap(broadcast.Broadcast, "blocker")
wrap(broadcast.Broadcast, "_holds", lambda a, k, out: out)
with plugin_ops.tracing(call):
    r = simulate(model, workers=workers, threads_per_worker=4, policy="tidegate",
                 bandwidth="1GB/s", record_memory=False)
T = len(r.trace.tasks)
print("tasks", T, "all/task", n[0] / T)
for k, (c, v) in sorted(agg.items(), key=lambda x: -x[1][1]):
    if v / T > 2:
        print(f"{v/T:8.1f}/task {c:6d} calls {v/c:8.1f} each  {k}")
