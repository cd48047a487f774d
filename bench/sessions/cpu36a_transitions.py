"""(cpu36a, session 36) dask transitions per task by (start, finish), queue vs tidegate, on the
twin (every scheduler transition, not only the traced work). python cpu36a_transitions.py
WORKLOAD SCALE WORKERS"""
import sys, os, collections
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import plugin_ops
from tidegate.sim import simulate
from tidegate.sim.model import build_model
from tidegate.sim.workloads import build
from tidegate.sim import cluster as ds0
class _D: pass
ds = _D(); ds.SchedulerState = ds0.QuietSimScheduler
name, scale, workers = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
w = build(name, int(plugin_ops.STEPS[name] * scale), 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
orig = ds.SchedulerState._transition
for pol in ("queue", "tidegate"):
    cnt = collections.Counter()
    def tr(self, key, finish, stimulus_id, **kw):
        ts = self.tasks.get(key)
        st = ts._state if ts is not None else None
        cnt[(st, finish)] += 1
        return orig(self, key, finish, stimulus_id, **kw)
    ds.SchedulerState._transition = tr
    r = simulate(model, workers=workers, threads_per_worker=4, policy=pol,
                     bandwidth="1GB/s", record_memory=False)
    T = len(r.trace.tasks)
    print(pol, T, sum(cnt.values()) / T)
    for k, v in cnt.most_common():
        print("   ", k, v, round(v / T, 3))
