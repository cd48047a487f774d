"""(cpu36b, session 36) Own bytecodes per task by function, all code (dask's and the
plugin's), queue and tidegate side by side, sorted by the difference (as plugin_ops.count counts).
python cpu36b_allfn.py WORKLOAD SCALE WORKERS [N]"""
import os, sys, json
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import plugin_ops as po
from tidegate.sim import simulate
from tidegate.sim.model import build_model
from tidegate.sim.workloads import build

def prof(model, workers, policy):
    per = {}
    n = [0]
    def local(frame, event, arg):
        if event == "opcode":
            per[frame.f_code][0] += 1
        return local
    def call(frame, event, arg):
        c = per.get(frame.f_code)
        if c is None:
            c = per[frame.f_code] = [0, 0]
        c[1] += 1
        frame.f_trace_opcodes = True
        frame.f_trace_lines = False
        return local
    with po.tracing(call):
        r = simulate(model, workers=workers, threads_per_worker=4, policy=policy,
                     bandwidth="1GB/s", record_memory=False)
    tasks = len(r.trace.tasks)
    out = {}
    for c, (o, k) in per.items():
        key = f"{os.path.basename(c.co_filename)}:{c.co_qualname}"
        a = out.setdefault(key, [0, 0])
        a[0] += o / tasks; a[1] += k / tasks
    return tasks, out

name = sys.argv[1]; scale = float(sys.argv[2]); workers = int(sys.argv[3])
w = build(name, int(po.STEPS[name] * scale), 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
tq, q = prof(model, workers, "queue")
tt, t = prof(model, workers, "tidegate")
print("tasks", tq, tt, "queue total", round(sum(v[0] for v in q.values()), 1),
      "tidegate total", round(sum(v[0] for v in t.values()), 1))
keys = set(q) | set(t)
rows = sorted(keys, key=lambda k: -abs(t.get(k, [0,0])[0] - q.get(k, [0,0])[0]))
print(f"{'queue':>9} {'tide':>9} {'diff':>9} {'qcalls':>7} {'tcalls':>7}  function")
for k in rows[:int(sys.argv[4]) if len(sys.argv) > 4 else 80]:
    a = q.get(k, [0, 0]); b = t.get(k, [0, 0])
    print(f"{a[0]:9.1f} {b[0]:9.1f} {b[0]-a[0]:9.1f} {a[1]:7.2f} {b[1]:7.2f}  {k}")
