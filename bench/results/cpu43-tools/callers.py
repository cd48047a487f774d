"""(cpu37a) Who calls dask's small Python accessors (TaskState.state's getter, __hash__ of
TaskState and WorkerState, TaskState.prefix, WorkerState.scheduler...) in the twin's
scheduler work: calls a task by calling line, per policy. Each is a Python frame (~60-90 ns)
where a slot read or a str key's cached hash is C. python callers.py WORKLOAD SCALE WORKERS [TOP [POLICY]]"""
import collections, os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import plugin_ops
from distributed.scheduler import TaskState, WorkerState
from tidegate.sim import simulate
from tidegate.sim.model import build_model
from tidegate.sim.workloads import build
name, scale, workers = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
top = int(sys.argv[4]) if len(sys.argv) > 4 else 25
only = sys.argv[5] if len(sys.argv) > 5 else None
w = build(name, int(plugin_ops.STEPS[name] * scale), 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
targets = {TaskState.state.fget.__code__: "TaskState.state", TaskState.__hash__.__code__:
           "TaskState.__hash__", WorkerState.__hash__.__code__: "WorkerState.__hash__",
           TaskState.prefix.fget.__code__: "TaskState.prefix"}
for n in ("scheduler", "occupancy", "has_what", "processing"):
    p = WorkerState.__dict__.get(n)
    if isinstance(p, property):
        targets[p.fget.__code__] = "WorkerState." + n
for pol in ((only,) if only else ("queue", "tidegate")):
    by = collections.Counter()
    def call(frame, event, arg):
        name = targets.get(frame.f_code)
        if name is not None:
            b = frame.f_back
            c = b.f_code
            by[(name, f"{os.path.basename(c.co_filename)}:{b.f_lineno} {c.co_qualname}")] += 1
        return None
    with plugin_ops.tracing(call):
        r = simulate(model, workers=workers, threads_per_worker=4, policy=pol,
                     bandwidth="1GB/s", record_memory=False)
    T = len(r.trace.tasks)
    tot = collections.Counter()
    for (n, _), v in by.items():
        tot[n] += v
    print(f"== {pol}: " + ", ".join(f"{n} {v / T:.1f}" for n, v in tot.most_common()))
    for (n, where), v in by.most_common(top):
        print(f"  {v / T:6.2f}  {n:22s} {where}")
