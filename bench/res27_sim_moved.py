"""res27: peak / makespan / bytes of sim_fingerprints' f-unique (unique-key loaders) at 4x2
and 8x2, queue and tidegate, under whatever tidegate is on PYTHONPATH; RES27_BITS sets
policy.FREES_SLOT (default: the code's)."""
import os
import sys

import tidegate.policy as P  # (first: importing tidegate drops bench/ from sys.path)

here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
sys.path.append(here)
import sim_fingerprints as sf  # noqa: E402
from tidegate.sim import simulate  # noqa: E402

if "RES27_BITS" in os.environ and hasattr(P, "FREES_SLOT"):
    P.FREES_SLOT = int(os.environ["RES27_BITS"])
x, keys, sizes, durations = sf.graph("f-unique")
for w in (4, 8):
    for r in simulate(x, keys=keys, sizes=sizes, durations=durations, workers=w,
                      threads_per_worker=2, policy=["queue", "tidegate"], processes=1):
        print(f"f-unique {w}x2 {r.policy:9s} peak {max(r.peak_memory_per_worker)/1e6:8.1f} MB  "
              f"makespan {r.makespan:7.3f} s  moved {r.bytes_transferred/1e6:8.1f} MB")
