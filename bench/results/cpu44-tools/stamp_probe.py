"""(cpu44) How many of the memory branch's stamps follow the replica hook's stamp of the
same key with no stamp between (redundant candidates), twin W at 100 x 4, scale S."""
import sys
import os
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import plugin_ops
from tidegate.distributed import hooks
from tidegate.sim import simulate
from tidegate.sim.model import build_model
from tidegate.sim.workloads import build
name, scale = sys.argv[1], float(sys.argv[2])
n = {"transitions": 0, "mem_stamps": 0, "mem_after_own": 0, "other_stamps": 0}
orig = hooks.Plugin.transition
def transition(self, key, start, finish, *a, **kw):
    n["transitions"] += 1
    first = finish == "waiting" and start in ("released", "waiting") and kw.get("worker") is None
    if self._moves and key in self._moves and not first \
            and not (start == "processing" and finish == "memory"):
        if start == "memory":
            n["mem_stamps"] += 1
            n["mem_after_own"] += self._moves[key] == self._moved
        else:
            n["other_stamps"] += 1
    return orig(self, key, start, finish, *a, **kw)
hooks.Plugin.transition = transition
w = build(name, int(plugin_ops.STEPS[name] * scale), 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
r = simulate(model, workers=100, threads_per_worker=4, policy="tidegate", bandwidth="1GB/s",
             record_memory=False)
T = len(r.trace.tasks)
print(name, scale, {k: round(v / T, 3) for k, v in n.items()})
