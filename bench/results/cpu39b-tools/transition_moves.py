"""(cpu39b, session 39) Plugin.transition's own bytecodes by (start, finish): calls a task
and bytecodes a call (its own frame only), in one traced twin run.

    PYTHONHASHSEED=0 PYTHONPATH=src python bench/results/cpu39b-tools/transition_moves.py \
        [WORKLOAD] [SCALE] [WORKERS]"""
import collections
import sys

sys.path.insert(0, "bench")
import plugin_ops  # noqa: E402
from tidegate.distributed import hooks  # noqa: E402
from tidegate.sim import simulate  # noqa: E402
from tidegate.sim.model import build_model  # noqa: E402
from tidegate.sim.workloads import build  # noqa: E402

name = sys.argv[1] if len(sys.argv) > 1 else "anomaly"
scale = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
nworkers = int(sys.argv[3]) if len(sys.argv) > 3 else 100
code = hooks.Plugin.transition.__code__
ops = collections.Counter()
calls = collections.Counter()


def call(frame, event, arg):
    if frame.f_code is not code:
        return None
    f = frame.f_locals
    k = (f["start"], f["finish"], f["worker"] is not None)
    calls[k] += 1
    frame.f_trace_opcodes = True
    frame.f_trace_lines = False

    def local(fr, ev, a):
        if ev == "opcode":
            ops[k] += 1
        return local
    return local


w = build(name, int(plugin_ops.STEPS[name] * scale), 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
with plugin_ops.tracing(call):
    r = simulate(model, workers=nworkers, threads_per_worker=4, policy="tidegate",
                 bandwidth="1GB/s", record_memory=False)
T = len(r.trace.tasks)
print(f"{name} scale {scale} {nworkers}x4: {T} tasks; transition own {sum(ops.values()) / T:.1f}"
      f" a task, {sum(calls.values()) / T:.2f} calls")
for k, n in sorted(calls.items(), key=lambda kv: -ops[kv[0]]):
    print(f"  {k[0]:>10s} -> {k[1]:10s} worker={k[2]!s:5s} {n / T:5.2f} calls a task "
          f"{ops[k] / n:6.1f} a call {ops[k] / T:6.1f} a task")
