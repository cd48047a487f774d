"""Own bytecodes a task of EVERY function (dask's and the plugin's) on the twin's scheduler
side, as bench/plugin_ops.py counts them: W SCALE WORKERS POLICY OUT.json"""
import json, os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import plugin_ops
from tidegate.sim import simulate
from tidegate.sim.model import build_model
from tidegate.sim.workloads import build

name, scale, workers, policy, out = (sys.argv[1], float(sys.argv[2]), int(sys.argv[3]),
                                     sys.argv[4], sys.argv[5])
w = build(name, int(plugin_ops.STEPS[name] * scale), 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
per = {}

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

with plugin_ops.tracing(call):
    r = simulate(model, workers=workers, threads_per_worker=4, policy=policy,
                 bandwidth="1GB/s", record_memory=False)
tasks = len(r.trace.tasks)
rows = {f"{c.co_filename.split('site-packages/')[-1].split('/src/')[-1]}:{c.co_firstlineno} "
        f"{c.co_qualname}": [o / tasks, k / tasks] for c, (o, k) in per.items()}
json.dump({"tasks": tasks, "total": sum(v[0] for v in rows.values()), "rows": rows},
          open(out, "w"), indent=0)
print(name, policy, tasks, round(sum(v[0] for v in rows.values()), 1))
