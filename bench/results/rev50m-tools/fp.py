import os, sys, hashlib
from tidegate import policy
from tidegate.sim import simulate
from tidegate.sim.workloads import build
for kv in os.environ.get("SETS", "").split():
    k, v = kv.split("="); setattr(policy, k, int(v))
steps, w, t = map(int, sys.argv[1:4])
kw = {"saturation": float(os.environ["SAT"])} if os.environ.get("SAT") else {}
(r,) = simulate(build("anomaly", steps, 190e6, store=True).model(), workers=w, threads_per_worker=t,
                seed=0, policy=["tidegate"], record_memory=False, processes=1, **kw)
h = hashlib.sha1(repr(sorted((str(x.key), x.worker, round(x.start, 9)) for x in r.trace.tasks)).encode()).hexdigest()[:12]
print(steps, w, t, os.environ.get("SAT"), os.environ.get("SETS"), r.makespan, h)
