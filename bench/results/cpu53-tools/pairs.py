"""Inclusive bytecodes a task by (caller, callee) for plugin callees, plugin_ops.py's
tracing, policy tidegate: W SCALE WORKERS [N]"""
import collections, os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import plugin_ops  # noqa: E402
from tidegate.sim import simulate  # noqa: E402
from tidegate.sim.model import build_model  # noqa: E402
from tidegate.sim.workloads import build  # noqa: E402

name, scale, workers = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
top = int(sys.argv[4]) if len(sys.argv) > 4 else 80
w = build(name, int(plugin_ops.STEPS[name] * scale), 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
n = [0]
incl = collections.Counter()
calls = collections.Counter()
stack = []


def local(frame, event, arg):
    if event == "opcode":
        n[0] += 1
    elif event == "return":
        key, start = stack.pop()
        incl[key] += n[0] - start
    return local


def call(frame, event, arg):
    code = frame.f_code
    b = frame.f_back
    key = (b.f_code if b is not None else None, code)
    stack.append((key, n[0]))
    calls[key] += 1
    frame.f_trace_opcodes = True
    frame.f_trace_lines = False
    return local


with plugin_ops.tracing(call):
    r = simulate(model, workers=workers, threads_per_worker=4, policy="tidegate",
                 bandwidth="1GB/s", record_memory=False)
tasks = len(r.trace.tasks)
print(f"tasks {tasks} ops/task {n[0] / tasks:.1f}")


def nm(c):
    if c is None:
        return "-"
    f = c.co_filename.split("site-packages/")[-1].split("/tidegate/")[-1]
    return f"{os.path.basename(f)}:{c.co_firstlineno} {c.co_qualname}"


for (p, c), v in incl.most_common(top * 3):
    if not plugin_ops.in_plugin(c):
        continue
    print(f"{v / tasks:8.1f} {calls[(p, c)] / tasks:6.2f} {v / calls[(p, c)]:8.1f}/call "
          f"{nm(c)}  <- {nm(p)}")
