import sys
sys.path.insert(0, "/work/wt/cpu43/bench")
import plugin_ops
from tidegate.distributed import trim
from tidegate.sim import cluster as sim_cluster
from tidegate.sim import simulate
from tidegate.sim.model import build_model
from tidegate.sim.workloads import build
name, scale, workers = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
w = build(name, int(plugin_ops.STEPS[name] * scale), 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
orig_sw = sim_cluster.SimCluster.scheduler_work
def run(defer):
    trim.DEFER_FULL = defer
    seq = []
    def sw(cluster, fn, *a, **k):
        def r(*aa):
            out = fn(*aa)
            s = cluster.scheduler
            seq.append((tuple(s.idle.keys()), tuple(sorted(ws.address for ws in s.saturated))))
            return out
        orig_sw(cluster, r, *a, **k)
    sim_cluster.SimCluster.scheduler_work = sw
    try:
        res = simulate(model, workers=workers, threads_per_worker=4, policy="tidegate",
                       bandwidth="1GB/s", record_memory=False)
    finally:
        sim_cluster.SimCluster.scheduler_work = orig_sw
    return seq, res
a, ra = run(False)
b, rb = run(True)
sat = sum(1 for x in a if x[1])
print(name, scale, workers, "units", len(a), len(b), "same idle/saturated after every unit:", a == b,
      "units with saturated non-empty:", sat, "makespan", ra.makespan if hasattr(ra,'makespan') else None,
      rb.makespan if hasattr(rb,'makespan') else None)
if a != b:
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            print("first difference at unit", i); print(x); print(y); break
