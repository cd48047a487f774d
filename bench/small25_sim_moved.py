"""small25: makespan / peak per worker / bytes moved of sim_fingerprints configurations (exact
names), tidegate and queue, on the code PYTHONPATH points at (run once per code base).

    python bench/small25_sim_moved.py vorticity/8x2/tidegate/thread-lag s-vorticity/4x2/tidegate
"""
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
sys.path.append(here)
import sim_fingerprints as sf  # noqa: E402

from tidegate.sim import simulate  # noqa: E402

for name, g, opts in sf.configs():
    if name not in sys.argv[1:]:
        continue
    x, keys, sizes, durations = sf.graph(g)
    for p in ("queue", "tidegate"):
        r = simulate(x, keys=keys, sizes=sizes, durations=durations, **dict(opts, policy=p, processes=1))
        print(f"{name:40s} {p:9s} makespan {r.makespan:7.3f} s  peak "
              f"{max(r.peak_memory_per_worker) / 1e6:7.1f} MB  moved {r.bytes_transferred / 1e6:8.1f} MB",
              flush=True)
