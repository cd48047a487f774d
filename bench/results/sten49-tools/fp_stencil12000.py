import sys; sys.path.insert(0, "bench")
import plugin_fingerprints as P
from tidegate import policy
from tidegate.sim import simulate
m = P.shape_model("stencil-12000-s3")
for u in (0, 1):
    policy.LACKED_UNBLOCK = u
    r = simulate(m, policy="tidegate", workers=8, threads_per_worker=2, bandwidth="200MB/s")
    print(u, P.digest(r), round(r.makespan, 4), [round(p/1e6) for p in r.peak_memory_per_worker], round(r.bytes_transferred/1e6, 1))
q = simulate(m, policy="queue", workers=8, threads_per_worker=2, bandwidth="200MB/s")
print("queue", round(q.makespan, 4), [round(p/1e6) for p in q.peak_memory_per_worker], round(q.bytes_transferred/1e6,1))
