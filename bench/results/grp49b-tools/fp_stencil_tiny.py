"""grp49b: plugin fingerprint of stencil-12000-s3 at 8 x 2 (the one of 62 that differs from
lead47's on trial49) at TINY_ROOT_LANDS 0 and 1: run from the repo root."""
import sys; sys.path.insert(0, "bench")
import plugin_fingerprints as P
from tidegate import policy
from tidegate.sim import simulate
m = P.shape_model("stencil-12000-s3")
for u in (0, 1):
    policy.TINY_ROOT_LANDS = u
    r = simulate(m, policy="tidegate", workers=8, threads_per_worker=2, bandwidth="200MB/s")
    print(u, P.digest(r), round(r.makespan, 4), [round(p/1e6) for p in r.peak_memory_per_worker])
