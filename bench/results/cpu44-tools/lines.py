"""(cpu38a) Bytecodes per task by source line of chosen functions (plugin_ops.py's
tracing: the twin's scheduler work only), policy tidegate.
PYTHONHASHSEED=0 PYTHONPATH=<src> python bench/results/cpu38a-tools/lines.py WORKLOAD SCALE
    WORKERS QUALNAME [QUALNAME ...]   (e.g. Books.place Books.place.<locals>.admits)"""
import collections, os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import plugin_ops  # noqa: E402
from tidegate.sim import simulate  # noqa: E402
from tidegate.sim.model import build_model  # noqa: E402
from tidegate.sim.workloads import build  # noqa: E402

name, scale, workers = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
wanted = set(sys.argv[4:])
per = collections.Counter()
calls = collections.Counter()
codes = {}


def local(frame, event, arg):
    if event == "opcode":
        per[(frame.f_code, frame.f_lineno)] += 1
    return local


def call(frame, event, arg):
    code = frame.f_code
    if code.co_qualname in wanted and plugin_ops.in_plugin(code):
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
import linecache
for code, k in calls.items():
    tot = sum(v for (c, _), v in per.items() if c is code)
    print(f"== {code.co_qualname} ({os.path.basename(code.co_filename)}:{code.co_firstlineno})"
          f" {tot / T:.1f} ops/task, {k / T:.2f} calls/task")
    for (c, ln), v in sorted(per.items(), key=lambda kv: kv[0][1] or 0):
        if c is code and v / T >= float(os.environ.get("MIN", "0.5")):
            text = linecache.getline(code.co_filename, ln or 0).rstrip()[:100]
            print(f"{v / T:8.1f} {ln or 0:5d} {text}")
