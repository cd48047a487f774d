"""(cpu40b) Own bytecodes per task of every function (any file: dask's too) run inside chosen
plugin functions (their inclusive cost split by where it is spent), twin scheduler work only,
policy tidegate, with calls.
PYTHONHASHSEED=0 PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=<src> python
    bench/results/cpu40b-tools/inside.py WORKLOAD SCALE WORKERS QUALNAME [QUALNAME ...]"""
import collections, os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import plugin_ops  # noqa: E402
from tidegate.sim import simulate  # noqa: E402
from tidegate.sim.model import build_model  # noqa: E402
from tidegate.sim.workloads import build  # noqa: E402

name, scale, workers = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
wanted = set(sys.argv[4:])
own = collections.Counter()
calls = collections.Counter()
depth = [0]


def local(frame, event, arg):
    if event == "opcode":
        if depth[0]:
            c = frame.f_code
            own[(c.co_qualname, os.path.basename(c.co_filename))] += 1
    elif event == "return":
        c = frame.f_code
        if c.co_qualname in wanted and plugin_ops.in_plugin(c):
            depth[0] -= 1
    return local


def call(frame, event, arg):
    code = frame.f_code
    if code.co_qualname in wanted and plugin_ops.in_plugin(code):
        depth[0] += 1
    if depth[0]:
        calls[(code.co_qualname, os.path.basename(code.co_filename))] += 1
    frame.f_trace_opcodes = True
    frame.f_trace_lines = False
    return local


w = build(name, int(plugin_ops.STEPS[name] * scale), 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
with plugin_ops.tracing(call):
    r = simulate(model, workers=workers, threads_per_worker=4, policy="tidegate",
                 bandwidth="1GB/s", record_memory=False)
T = len(r.trace.tasks)
print(f"{name} scale {scale} workers {workers}: {T} tasks; inside {sorted(wanted)}: "
      f"{sum(own.values()) / T:.1f} bytecodes a task")
for k, v in own.most_common():
    print(f"{v / T:9.1f} own/task {calls[k] / T:7.3f} calls/task  {k[1]}:{k[0]}")
