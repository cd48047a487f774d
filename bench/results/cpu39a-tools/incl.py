"""(cpu39a) Inclusive bytecodes per task (all code below them, dask's too) of chosen
functions, and their calls, in the twin's scheduler work, policy tidegate; nested
entries of one function count once (the outermost).
PYTHONHASHSEED=0 PYTHONPATH=<src> python bench/results/cpu39a-tools/incl.py WORKLOAD SCALE
    WORKERS QUALNAME [QUALNAME ...]"""
import collections, os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import plugin_ops  # noqa: E402
from tidegate.sim import simulate  # noqa: E402
from tidegate.sim.model import build_model  # noqa: E402
from tidegate.sim.workloads import build  # noqa: E402

name, scale, workers = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
wanted = set(sys.argv[4:])
incl = collections.Counter()
calls = collections.Counter()
active = collections.Counter()  # qualname -> depth of open frames


def local(frame, event, arg):
    if event == "opcode":
        for q, d in active.items():
            if d:
                incl[q] += 1
    elif event == "return":
        q = frame.f_code.co_qualname
        if q in wanted and plugin_ops.in_plugin(frame.f_code):
            active[q] -= 1
    return local


def call(frame, event, arg):
    code = frame.f_code
    q = code.co_qualname
    if q in wanted and plugin_ops.in_plugin(code):
        calls[q] += 1
        active[q] += 1
    frame.f_trace_opcodes = True
    frame.f_trace_lines = False
    return local


w = build(name, int(plugin_ops.STEPS[name] * scale), 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
with plugin_ops.tracing(call):
    r = simulate(model, workers=workers, threads_per_worker=4, policy="tidegate",
                 bandwidth="1GB/s", record_memory=False)
T = len(r.trace.tasks)
print(f"{name} scale {scale} workers {workers}: {T} tasks")
for q in sorted(wanted, key=lambda q: -incl[q]):
    print(f"{incl[q] / T:9.1f} incl/task {calls[q] / T:6.3f} calls/task {calls[q]:7d} calls  {q}")
