"""(cpu37b, session 37) Bytecodes a task inside Plugin.transition (its callees too), by
(start, finish), and inside poke, in the twin's scheduler work (as plugin_ops.py counts).

    PYTHONHASHSEED=0 PYTHONPATH=src python bench/results/cpu37b-tools/hop_ops.py [WORKLOAD] [WORKERS]
"""
import collections
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import plugin_ops  # noqa: E402
from tidegate.distributed.hooks import Plugin  # noqa: E402
from tidegate.sim import simulate  # noqa: E402
from tidegate.sim.model import build_model  # noqa: E402
from tidegate.sim.workloads import build  # noqa: E402

name = sys.argv[1] if len(sys.argv) > 1 else "anomaly"
workers = int(sys.argv[2]) if len(sys.argv) > 2 else 100
w = build(name, int(plugin_ops.STEPS[name] * 0.5), 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
ops = collections.Counter()
calls = collections.Counter()
where = [None]
orig = Plugin.transition


def transition(self, key, start, finish, *args, **kwargs):
    outer, where[0] = where[0], (start, finish)
    calls[start, finish] += 1
    try:
        return orig(self, key, start, finish, *args, **kwargs)
    finally:
        where[0] = outer


def local(frame, event, arg):
    if event == "opcode" and where[0] is not None:
        ops[where[0]] += 1
    return local


def call(frame, event, arg):
    frame.f_trace_opcodes = True
    frame.f_trace_lines = False
    return local


Plugin.transition = transition
with plugin_ops.tracing(call):
    r = simulate(model, workers=workers, threads_per_worker=4, policy="tidegate",
                 bandwidth="1GB/s", record_memory=False)
Plugin.transition = orig
T = len(r.trace.tasks)
print(f"{name} {workers}x4 scale 0.5: {T} tasks; Plugin.transition by (start, finish):")
for k in sorted(calls, key=lambda k: -ops[k]):
    print(f"  {str(k):32s} calls {calls[k] / T:5.2f} a task  {ops[k] / T:7.1f} bytecodes a task"
          f"  {ops[k] / calls[k]:6.1f} a call")
print(f"  total {sum(ops.values()) / T:.1f} a task")
