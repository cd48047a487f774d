"""(cpu47) Plugin bytecodes a task by source line, every plugin function at once
(plugin_ops.py's tracing, policy tidegate). Also each function's own total and calls.
PYTHONHASHSEED=0 PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=<src> python alllines.py W SCALE WORKERS
    [MIN_OPS_PER_LINE]  -> prints functions (>= 5 ops/task) with their lines >= MIN"""
import collections, linecache, os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import plugin_ops  # noqa: E402
from tidegate.sim import simulate  # noqa: E402
from tidegate.sim.model import build_model  # noqa: E402
from tidegate.sim.workloads import build  # noqa: E402

name, scale, workers = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
mn = float(sys.argv[4]) if len(sys.argv) > 4 else 1.0
per = collections.Counter()
calls = collections.Counter()
mine = {}


def local(frame, event, arg):
    if event == "opcode":
        per[(frame.f_code, frame.f_lineno)] += 1
    return local


def call(frame, event, arg):
    code = frame.f_code
    p = mine.get(code)
    if p is None:
        p = mine[code] = plugin_ops.in_plugin(code)
    if p:
        calls[code] += 1
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
tot = collections.Counter()
for (c, ln), v in per.items():
    tot[c] += v
print(f"tasks {T} plugin ops/task {sum(tot.values()) / T:.1f}")
for code, v in tot.most_common():
    if v / T < 5:
        break
    print(f"== {code.co_qualname} ({os.path.basename(code.co_filename)}:{code.co_firstlineno})"
          f" {v / T:.1f} ops/task, {calls[code] / T:.2f} calls/task")
    for (c, ln), n in sorted(per.items(), key=lambda kv: kv[0][1] or 0):
        if c is code and n / T >= mn:
            text = linecache.getline(code.co_filename, ln or 0).rstrip()[:100]
            print(f"{n / T:8.1f} {ln or 0:5d} {text}")
