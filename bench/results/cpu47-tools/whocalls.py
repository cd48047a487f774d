"""(cpu47) Calls a task of chosen plugin functions by calling line (policy tidegate).
PYTHONHASHSEED=0 PYTHONPATH=<src> python whocalls.py W SCALE WORKERS QUALNAME [QUALNAME...]"""
import collections, os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import plugin_ops  # noqa: E402
from tidegate.sim import simulate  # noqa: E402
from tidegate.sim.model import build_model  # noqa: E402
from tidegate.sim.workloads import build  # noqa: E402

name, scale, workers = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
wanted = set(sys.argv[4:])
by = collections.Counter()


def call(frame, event, arg):
    code = frame.f_code
    if code.co_qualname in wanted and plugin_ops.in_plugin(code):
        b = frame.f_back
        by[(code.co_qualname, b.f_code.co_qualname, os.path.basename(b.f_code.co_filename),
            b.f_lineno)] += 1
    return None


w = build(name, int(plugin_ops.STEPS[name] * scale), 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
with plugin_ops.tracing(call):
    r = simulate(model, workers=workers, threads_per_worker=4, policy="tidegate",
                 bandwidth="1GB/s", record_memory=False)
T = len(r.trace.tasks)
for (f, c, fn, ln), v in sorted(by.items(), key=lambda kv: -kv[1]):
    print(f"{v / T:7.3f} {f:40s} <- {c} ({fn}:{ln})")
