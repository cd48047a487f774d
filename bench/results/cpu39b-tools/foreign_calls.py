"""(cpu39b, session 39) Python code outside the plugin (dask's, sortedcontainers') called
straight from the plugin's per-task files (hooks, admission, held, lines, server, install,
restricted): inclusive bytecodes a task by callee and calling line, in one traced twin run.
Finds work the plugin's own counts (plugin_ops --functions) do not show.

    PYTHONHASHSEED=0 PYTHONPATH=src python bench/results/cpu39b-tools/foreign_calls.py \
        [WORKLOAD] [SCALE] [WORKERS] [N]"""
import collections
import os
import sys

sys.path.insert(0, "bench")
import plugin_ops  # noqa: E402
from tidegate.sim import simulate  # noqa: E402
from tidegate.sim.model import build_model  # noqa: E402
from tidegate.sim.workloads import build  # noqa: E402

name = sys.argv[1] if len(sys.argv) > 1 else "anomaly"
scale = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
nworkers = int(sys.argv[3]) if len(sys.argv) > 3 else 100
N = int(sys.argv[4]) if len(sys.argv) > 4 else 25
MINE = tuple(os.path.join("distributed", f) for f in (
    "hooks.py", "admission.py", "held.py", "lines.py", "server.py", "install.py",
    "restricted.py"))
plugin = {}
counts = collections.Counter()
calls = collections.Counter()
stack = []  # (label or None) per traced frame


def local(frame, event, arg):
    if event == "opcode":
        for lab in active:
            counts[lab] += 1
    elif event == "return":
        lab = frames.pop(frame, None)
        if lab is not None:
            active.remove(lab)
    return local


frames = {}
active = []


def call(frame, event, arg):
    code = frame.f_code
    p = plugin.get(code)
    if p is None:
        p = plugin[code] = plugin_ops.in_plugin(code)
    if not p and not active:
        b = frame.f_back
        if b is not None and b.f_code.co_filename.endswith(MINE):
            lab = (f"{code.co_qualname}",
                   f"{os.path.basename(b.f_code.co_filename)}:{b.f_lineno} {b.f_code.co_qualname}")
            frames[frame] = lab
            active.append(lab)
            calls[lab] += 1
    frame.f_trace_opcodes = True
    frame.f_trace_lines = False
    return local


w = build(name, int(plugin_ops.STEPS[name] * scale), 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
with plugin_ops.tracing(call):
    r = simulate(model, workers=nworkers, threads_per_worker=4, policy="tidegate",
                 bandwidth="1GB/s", record_memory=False)
T = len(r.trace.tasks)
print(f"{name} scale {scale} {nworkers}x4: {T} tasks")
for lab, v in counts.most_common(N):
    print(f"  {v / T:7.1f} a task {calls[lab] / T:6.2f} calls  {lab[0]}  <- {lab[1]}")
