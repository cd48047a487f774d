# ra45: tidegate trace of any twin workload with switches (python tr2.py NAME STEPS WORKERS THREADS [SWITCH=VALUE ...])
import sys
from tidegate import policy
from tidegate.sim import simulate
from tidegate.sim.workloads import build
name, steps, W, T = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
for kv in sys.argv[5:]:
    k, v = kv.split("="); setattr(policy, k, eval(v))
w = build(name, steps, 190e6, store=True)
m = w.model()
r, = simulate(m, workers=W, threads_per_worker=T, seed=0, policy=["tidegate"], record_memory=False, processes=1)
print("makespan %.3f" % r.makespan, [round(x/1e6) for x in r.peak_memory_per_worker], "moved", round(r.bytes_transferred/1e6))
for t in sorted(r.trace.tasks, key=lambda t: t.start):
    print("  %-40s %s %.3f %.3f" % (str(t.key)[:40], t.worker[-4:], t.start, t.stop))
