"""(cpu47) Plugin bytecodes a task, inclusive of the plugin callees (dask's own code called
from the plugin not counted), per plugin function; top N.
PYTHONHASHSEED=0 PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=<src> python incl.py W SCALE WORKERS [N]"""
import collections, os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import plugin_ops  # noqa: E402
from tidegate.sim import simulate  # noqa: E402
from tidegate.sim.model import build_model  # noqa: E402
from tidegate.sim.workloads import build  # noqa: E402

name, scale, workers = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
N = int(sys.argv[4]) if len(sys.argv) > 4 else 60
n = [0]
incl = collections.Counter()
calls = collections.Counter()
mine = {}
stack = []


def local(frame, event, arg):
    if event == "opcode":
        n[0] += 1
    elif event == "return":
        code, start, rec = stack.pop()
        if not rec:
            incl[code] += n[0] - start
    return local


def call(frame, event, arg):
    code = frame.f_code
    p = mine.get(code)
    if p is None:
        p = mine[code] = plugin_ops.in_plugin(code)
    if p:
        calls[code] += 1
        rec = any(c is code for c, _, _ in stack)
        stack.append((code, n[0], rec))
        frame.f_trace_opcodes = True
        frame.f_trace_lines = False
        return local
    return None


w = build(name, int(plugin_ops.STEPS[name] * scale), 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
with plugin_ops.tracing(call):
    r = simulate(model, workers=workers, threads_per_worker=4, policy="tidegate",
                 bandwidth="1GB/s", record_memory=False)
T = len(r.trace.tasks)
print(f"tasks {T} plugin ops/task {n[0] / T:.1f}")
for code, v in incl.most_common(N):
    print(f"{v / T:8.1f} incl {calls[code] / T:6.2f} calls  {code.co_qualname} "
          f"({os.path.basename(code.co_filename)}:{code.co_firstlineno})")
