"""chain24: peak / makespan / bytes of sim_fingerprints' f-unique 4x2 (queue and tidegate)."""
import os, sys
here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
sys.path.append(here)
import sim_fingerprints as sf
from tidegate.sim import simulate
x, keys, sizes, durations = sf.graph("f-unique")
for r in simulate(x, keys=keys, sizes=sizes, durations=durations, workers=4, threads_per_worker=2,
                  policy=["queue", "tidegate"], processes=1):
    print(f"f-unique 4x2 {r.policy:9s} peak {max(r.peak_memory_per_worker)/1e6:8.1f} MB  "
          f"makespan {r.makespan:7.3f} s  moved {r.bytes_transferred/1e6:8.1f} MB")
