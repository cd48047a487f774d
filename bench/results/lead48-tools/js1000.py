import sys, time
import tidegate.policy as policy
from tidegate.sim import simulate
from tidegate.sim.model import build_model
from tidegate.sim.workloads import build
steps, workers = int(sys.argv[1]), int(sys.argv[2])
w = build("rechunk-add", steps, 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
for pol, js in (("queue", 1), ("tidegate", 0), ("tidegate", 1)):
    policy.JOIN_SPREAD = js
    t0 = time.time()
    r = simulate(model, workers=workers, threads_per_worker=4, policy=pol, bandwidth="1GB/s")
    s = r.summary() if hasattr(r, "summary") else None
    print(pol, js, round(r.makespan,3), max(r.peak_memory_per_worker)/1e6, r.bytes_transferred/1e9, round(time.time()-t0,1), flush=True)
