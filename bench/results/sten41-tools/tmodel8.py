"""tests/test_stencil.py's model on eight threads, SPREAD_PAST off and on, run by run:
python bench/results/sten41-tools/tmodel8.py [THREADS] [LAG] (PYTHONPATH=src:tests)."""
import sys

import dask.array as da
import test_stencil as t
from _namings import NAMINGS, renamed

from tidegate import policy
from tidegate.sim import simulate
from tidegate.sim.model import build_model

threads = int(sys.argv[1]) if len(sys.argv) > 1 else 8
lag = float(sys.argv[2]) if len(sys.argv) > 2 else 0.002
a = da.random.RandomState(2).random((6000, 6000), chunks=1000)
x = a.map_overlap(t._double, depth=1, boundary="none", name="stencil-a").std(axis=0)
model = build_model(x, sizes=t.REDUCED, durations=t.MEASURED, finalize=True)
import os
VALS = (0, 32)
for k, v in [kv.split("=") for kv in os.environ.get("SETS", "").split() if kv]:
    setattr(policy, k, int(v))
tot = {0: 0.0, 32: 0.0, "q": 0.0}
for salt in NAMINGS:
    for seed in (0, 1):
        line = f"{salt} s{seed}"
        for v in VALS:
            policy.SPREAD_PAST = v
            q, tide = simulate(renamed(model, salt), workers=2, threads_per_worker=threads,
                               bandwidth=200e6, outgoing_bandwidth=200e6, latency=0.001,
                               thread_lag=lag, seed=seed, policy=["queue", "tidegate"],
                               record_memory=False, processes=1)
            tot[v] += tide.makespan
            line += (f" | SPREAD_PAST {v}: {tide.makespan:.4f} s peak "
                     f"{max(tide.peak_memory_per_worker) / 1e6:.0f}")
        tot["q"] += q.makespan
        print(line + f" | queue {q.makespan:.4f} s peak {max(q.peak_memory_per_worker) / 1e6:.0f}")
print({k: round(v, 4) for k, v in tot.items()}, "ratios", round(tot[0] / tot["q"], 4),
      round(tot[32] / tot["q"], 4))
