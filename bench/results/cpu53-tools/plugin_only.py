"""The plugin's own bytecodes a task (plugin_ops.py's ``plugin_ops_per_task``), tracing
opcodes in the plugin's frames alone (~2x faster than plugin_ops.py; decisions unchanged,
so dask's own count does not move with a pure speedup): W SCALE WORKERS [NFUNC]"""
import collections, json, os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import plugin_ops  # noqa: E402
from tidegate.sim import simulate  # noqa: E402
from tidegate.sim.model import build_model  # noqa: E402
from tidegate.sim.workloads import build  # noqa: E402

name, scale, workers = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
nf = int(sys.argv[4]) if len(sys.argv) > 4 else 0
w = build(name, int(plugin_ops.STEPS[name] * scale), 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
per = collections.Counter()
calls = collections.Counter()
mine = {}


def local(frame, event, arg):
    if event == "opcode":
        per[frame.f_code] += 1
    return local


def call(frame, event, arg):
    code = frame.f_code
    p = mine.get(code)
    if p is None:
        p = mine[code] = plugin_ops.in_plugin(code)
    if not p:
        return None
    calls[code] += 1
    frame.f_trace_opcodes = True
    frame.f_trace_lines = False
    return local


with plugin_ops.tracing(call):
    r = simulate(model, workers=workers, threads_per_worker=4, policy="tidegate",
                 bandwidth="1GB/s", record_memory=False)
tasks = len(r.trace.tasks)
print(json.dumps({"workload": name, "scale": scale, "workers": workers, "tasks": tasks,
                  "plugin_ops_per_task": round(sum(per.values()) / tasks, 1),
                  "plugin_calls_per_task": round(sum(calls.values()) / tasks, 2)}), flush=True)
for c, v in per.most_common(nf):
    print(f"  {v / tasks:8.1f} ops/task {calls[c] / tasks:6.2f} calls/task  "
          f"{os.path.basename(c.co_filename)}:{c.co_firstlineno} {c.co_qualname}")
