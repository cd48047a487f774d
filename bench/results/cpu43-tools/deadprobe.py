"""How many of the p >= nc check_idle_saturated calls are followed, in the same unit of
scheduler work, by another check of the same worker (the first then dead unless read)?
Also: reads of s.idle / s.saturated between (SortedDict / set reads by dask) not traced."""
import collections, sys
sys.path.insert(0, "/work/wt/cpu43/bench")
import plugin_ops
from tidegate.distributed import trim
from tidegate.sim import cluster as sim_cluster
from tidegate.sim import simulate
from tidegate.sim.model import build_model
from tidegate.sim.workloads import build
name, scale, workers = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
unit = [0]
log = []
orig_q = trim.quick
def quick(s):
    m = orig_q(s)
    if m is None:
        return m
    def wrapped(ws, occ=-1.0):
        log.append((unit[0], ws.address, len(ws.processing) >= ws.nthreads))
        return m(ws, occ)
    return wrapped
trim.quick = quick
import tidegate.distributed.install as inst
inst.trim.quick = quick
orig_sw = sim_cluster.SimCluster.scheduler_work
def sw(cluster, fn, *a, **k):
    def run(*aa):
        unit[0] += 1
        return fn(*aa)
    orig_sw(cluster, run, *a, **k)
sim_cluster.SimCluster.scheduler_work = sw
w = build(name, int(plugin_ops.STEPS[name] * scale), 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
r = simulate(model, workers=workers, threads_per_worker=4, policy="tidegate", bandwidth="1GB/s", record_memory=False)
T = len(r.trace.tasks)
full = sum(1 for u, a, f in log if f)
dead = 0
for i, (u, a, f) in enumerate(log):
    if not f:
        continue
    for u2, a2, f2 in log[i + 1:]:
        if u2 != u:
            break
        if a2 == a:
            dead += 1
            break
print(f"{name} {scale} {workers}: tasks {T}, checks {len(log)/T:.2f}/task, p>=nc {full/T:.2f}/task, "
      f"followed by another check of ws in the same unit {dead/T:.2f}/task; units {unit[0]/T:.2f}/task")
