"""Inclusive bytecodes a task (own + callees) of every plugin function, plugin_ops.py's
tracing (scheduler-side work only), policy tidegate: W SCALE WORKERS [N]
(a recursive function counted at its outermost frame only)."""
import collections, os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import plugin_ops  # noqa: E402
from tidegate.sim import simulate  # noqa: E402
from tidegate.sim.model import build_model  # noqa: E402
from tidegate.sim.workloads import build  # noqa: E402

name, scale, workers = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
top = int(sys.argv[4]) if len(sys.argv) > 4 else 60
w = build(name, int(plugin_ops.STEPS[name] * scale), 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
n = [0]
incl = collections.Counter()
calls = collections.Counter()
active = collections.Counter()
stack = []


def local(frame, event, arg):
    if event == "opcode":
        n[0] += 1
    elif event == "return":
        code, start = stack.pop()
        active[code] -= 1
        if not active[code]:
            incl[code] += n[0] - start
    return local


def call(frame, event, arg):
    code = frame.f_code
    stack.append((code, n[0]))
    active[code] += 1
    calls[code] += 1
    frame.f_trace_opcodes = True
    frame.f_trace_lines = False
    return local


with plugin_ops.tracing(call):
    r = simulate(model, workers=workers, threads_per_worker=4, policy="tidegate",
                 bandwidth="1GB/s", record_memory=False)
tasks = len(r.trace.tasks)
print(f"tasks {tasks} ops/task {n[0] / tasks:.1f}")
for code, v in incl.most_common(top):
    f = code.co_filename.split("site-packages/")[-1].split("/src/")[-1].split("/tidegate/")[-1]
    print(f"{v / tasks:8.1f} {calls[code] / tasks:6.2f} {v / max(calls[code], 1):8.1f}/call "
          f"{f}:{code.co_firstlineno} {code.co_qualname}")
