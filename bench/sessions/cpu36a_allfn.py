"""(cpu36a, session 36) Own bytecodes and calls per task per function, all code (dask's too),
queue vs tidegate in the twin's scheduler work (as plugin_ops counts): the 70 functions that
differ most. python bench/sessions/cpu36a_allfn.py WORKLOAD SCALE WORKERS (pickle in /tmp)"""
import sys, os, collections, pickle
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import plugin_ops
from tidegate.sim import simulate
from tidegate.sim.model import build_model
from tidegate.sim.workloads import build
name, scale, workers = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
w = build(name, int(plugin_ops.STEPS[name] * scale), 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
def nm(c): return f"{os.path.basename(c.co_filename)}:{c.co_firstlineno} {c.co_qualname}"
out = {}
for pol in ("queue", "tidegate"):
    own = collections.Counter(); calls = collections.Counter()
    def local(frame, event, arg):
        if event == "opcode":
            own[frame.f_code] += 1
        return local
    def call(frame, event, arg):
        calls[frame.f_code] += 1
        frame.f_trace_opcodes = True
        frame.f_trace_lines = False
        return local
    with plugin_ops.tracing(call):
        r = simulate(model, workers=workers, threads_per_worker=4, policy=pol,
                     bandwidth="1GB/s", record_memory=False)
    T = len(r.trace.tasks)
    out[pol] = ({nm(c): v / T for c, v in own.items()}, {nm(c): v / T for c, v in calls.items()})
    print(pol, sum(own.values()) / T, sum(calls.values()) / T)
pickle.dump(out, open(f"/tmp/cpu36a_allfn-{name}.pkl", "wb"))
q, t = out["queue"][0], out["tidegate"][0]
qc, tc = out["queue"][1], out["tidegate"][1]
keys = set(q) | set(t)
rows = sorted(keys, key=lambda k: -abs(t.get(k, 0) - q.get(k, 0)))
for k in rows[:70]:
    print(f"{q.get(k,0):8.1f} {t.get(k,0):8.1f} {t.get(k,0)-q.get(k,0):+8.1f}"
          f"  calls {qc.get(k,0):6.2f} {tc.get(k,0):6.2f}  {k}")
