"""(cpu39b, session 39) Held.skip's calls by whether readers were parked since the wake (ahead) and the mark. python ahead.py WORKLOAD SCALE WORKERS
(from the worktree root, PYTHONHASHSEED=0 PYTHONPATH=<src>)"""
import sys, collections
sys.path.insert(0, "bench")
import plugin_ops
from tidegate.distributed import held
from tidegate.sim import simulate
from tidegate.sim.model import build_model
from tidegate.sim.workloads import build
c = collections.Counter()
o = held.Held.skip
def skip(self, covered, bound, limit, generation):
    c[("ahead empty" if not self._ahead else "ahead", self._mark is None)] += 1
    return o(self, covered, bound, limit, generation)
held.Held.skip = skip
name, scale, W = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
w = build(name, int(plugin_ops.STEPS[name] * scale), 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
r = simulate(model, workers=W, threads_per_worker=4, policy="tidegate", bandwidth="1GB/s", record_memory=False)
print(c)
