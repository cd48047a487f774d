"""(cpu35, session 35) Plugin bytecodes per source line (own), per task.
python lines.py WORKLOAD SCALE WORKERS N (READERS=1: from the first Broadcast.place on)"""
import sys, os, collections, linecache
from tidegate.sim import simulate
from tidegate.sim.model import build_model
from tidegate.sim.workloads import build
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import plugin_ops  # noqa: E402
name, scale, workers, N = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
w = build(name, int(plugin_ops.STEPS[name] * scale), 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
mine = {}
cnt = collections.Counter()
from tidegate.distributed import broadcast as _bc
ON = [not os.environ.get("READERS")]
_obp = _bc.Broadcast.place
def _bp(self, *a, **k):
    ON[0] = True
    return _obp(self, *a, **k)
_bc.Broadcast.place = _bp
def local(frame, event, arg):
    if event == "opcode" and ON[0] and mine[frame.f_code]:
        cnt[(frame.f_code.co_filename, frame.f_lineno)] += 1
    return local
def call(frame, event, arg):
    code = frame.f_code
    p = mine.get(code)
    if p is None:
        p = mine[code] = plugin_ops.in_plugin(code)
    frame.f_trace_opcodes = True
    frame.f_trace_lines = False
    return local
with plugin_ops.tracing(call):
    r = simulate(model, workers=workers, threads_per_worker=4, policy="tidegate",
                 bandwidth="1GB/s", record_memory=False)
T = len(r.trace.tasks)
tot = sum(cnt.values())
print("tasks", T, "plugin/task", tot / T)
for (f, l), v in cnt.most_common(N):
    print(f"{v/T:8.1f} {os.path.basename(f)}:{l}  {linecache.getline(f, l or 0).strip()[:90]}")
