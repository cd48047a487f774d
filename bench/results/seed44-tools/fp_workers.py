# seed44: a sim_fingerprints graph (argv[1]) at 20 x 4: per-worker peaks, queue and UNIT_STAGGER 0 / 1; argv[2]: a worker whose tasks to list
import sys, os
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import sim_fingerprints as F
from tidegate import policy
from tidegate.sim import simulate
g = sys.argv[1]
x, keys, sizes, durations = F.graph(g)
for side, v in (("queue", None), ("old", 0), ("new", 1)):
    o = dict(workers=20, threads_per_worker=4, policy="tidegate")
    if v is None: o["policy"] = "queue"
    else: policy.UNIT_STAGGER = v
    r = simulate(x, keys=keys, sizes=sizes, durations=durations, **o)
    print(side, round(r.makespan, 3), [round(p/1e6) for p in r.peak_memory_per_worker], round(r.bytes_transferred/1e6))
    if side != "queue":
        t = r.trace.tasks
        print("  ", type(t), len(t), t[0] if len(t) else None)
    if side != "queue" and len(sys.argv) > 2:
        for e in sorted(r.trace.tasks, key=lambda e: (e.worker, e.start)):
            if e.worker.endswith(sys.argv[2]):
                print(f"   {e.worker[-6:]} t{e.thread} {e.start:.3f}-{e.stop:.3f} {e.key if isinstance(e.key, str) else e.key} {e.nbytes/1e6:.0f}")
