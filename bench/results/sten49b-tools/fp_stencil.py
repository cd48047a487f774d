# sten49b: the plugin fingerprints' stencils BESIDE_LEAST moved, off / on and queuing's.
import sys; sys.path.insert(0, "bench")
import plugin_fingerprints as P
from tidegate import policy
from tidegate.sim import simulate
for name, w, kw in (("stencil-6000-s0", 4, {}),
                    ("stencil-6000-s0", 4, {"worker_memory_limit": 200e6, "memory_limit": 0.5}),
                    ("stencil-12000-s3", 8, {})):
    m = P.shape_model(name)
    for u in (0, 1):
        policy.BESIDE_LEAST = u
        r = simulate(m, policy="tidegate", workers=w, threads_per_worker=2,
                     bandwidth="200MB/s", **kw)
        print(name, w, kw, u, P.digest(r), round(r.makespan, 4),
              [round(p / 1e6) for p in r.peak_memory_per_worker], round(r.bytes_transferred / 1e6, 1))
    q = simulate(m, policy="queue", workers=w, threads_per_worker=2, bandwidth="200MB/s", **kw)
    print("  queue", round(q.makespan, 4), [round(p / 1e6) for p in q.peak_memory_per_worker],
          round(q.bytes_transferred / 1e6, 1))
