"""(cpu39b, session 39) Inclusive bytecodes of Admission._poke's calls (all code they run,
dask's too), split by whether the call changed nothing (noop_calls.py's test), and the
functions the no-change calls spend them in (own bytecodes).

    PYTHONHASHSEED=0 PYTHONPATH=src python bench/results/cpu39b-tools/poke_incl.py \
        [WORKLOAD] [SCALE] [WORKERS] [N]"""
import collections
import os
import sys

sys.path.insert(0, "bench")
import plugin_ops  # noqa: E402
from tidegate.distributed import admission, placement  # noqa: E402
from tidegate.sim import simulate  # noqa: E402
from tidegate.sim.model import build_model  # noqa: E402
from tidegate.sim.workloads import build  # noqa: E402

name = sys.argv[1] if len(sys.argv) > 1 else "anomaly"
scale = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
nworkers = int(sys.argv[3]) if len(sys.argv) > 3 else 100
N = int(sys.argv[4]) if len(sys.argv) > 4 else 25
A = admission.Admission
cur = [None]  # Counter of code -> own ops within the current _poke call
tot = {"same": collections.Counter(), "changed": collections.Counter()}
calls = collections.Counter()
started = [0]


def psnap(self, s):
    return (len(s.queued), self._ready.added, len(self._parked), self._blocked,
            self._stalled, self._wave is not None, self._epoch, len(self._open),
            len(self._free), len(self._copies._entry))


orig_poke = A._poke


def _poke(self, s, stimulus_id):
    before = psnap(self, s)
    n0 = started[0]
    outer = cur[0] is None
    if outer:
        cur[0] = collections.Counter()
    try:
        return orig_poke(self, s, stimulus_id)
    finally:
        if outer:
            c, cur[0] = cur[0], None
            k = "same" if started[0] == n0 and psnap(self, s) == before else "changed"
            tot[k].update(c)
            calls[k] += 1


orig_start = placement.Placement._start


def _start(self, *a, **k):
    started[0] += 1
    return orig_start(self, *a, **k)


def local(frame, event, arg):
    if event == "opcode" and cur[0] is not None:
        cur[0][frame.f_code] += 1
    return local


def call(frame, event, arg):
    frame.f_trace_opcodes = True
    frame.f_trace_lines = False
    return local


A._poke = _poke
placement.Placement._start = _start
w = build(name, int(plugin_ops.STEPS[name] * scale), 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
with plugin_ops.tracing(call):
    r = simulate(model, workers=nworkers, threads_per_worker=4, policy="tidegate",
                 bandwidth="1GB/s", record_memory=False)
T = len(r.trace.tasks)
print(f"{name} scale {scale} {nworkers}x4: {T} tasks")
for k in ("same", "changed"):
    s = sum(tot[k].values())
    print(f"  _poke calls that {k}: {calls[k] / T:.3f} a task, inclusive {s / T:.1f} "
          f"bytecodes a task ({s / max(calls[k], 1):.0f} a call)")
print("  in the calls that changed nothing, own bytecodes a task by function:")
for c, v in tot["same"].most_common(N):
    print(f"    {v / T:7.1f}  {os.path.basename(c.co_filename)}:{c.co_firstlineno} {c.co_qualname}")
