"""plugin_fingerprints' stencil-20000-s1 (20 x 4, 400 blocks) in the twin, BESIDE_DEEP 2 (base)
against the branch's default, with queuing: makespan and peak per lag and seed.
PYTHONPATH=src python big_stencil.py"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import plugin_fingerprints as pf  # noqa: E402

from tidegate import policy  # noqa: E402
from tidegate.sim import simulate  # noqa: E402

model = pf.shape_model("stencil-20000-s1")
deep = policy.BESIDE_DEEP
for lag in (0.0, 0.002, 0.01):
    for seed in (0, 1):
        out = {}
        for name, d in (("base", 2), ("new", deep)):
            policy.BESIDE_DEEP = d
            q, t = simulate(model, workers=20, threads_per_worker=4, bandwidth=200e6,
                            thread_lag=lag, seed=seed, policy=["queue", "tidegate"],
                            record_memory=False, processes=1)
            out[name] = t
        print(f"lag {lag*1e3:g} ms s{seed}: queue {q.makespan:.3f} s "
              f"{max(q.peak_memory_per_worker)/1e6:.0f} MB | " + " | ".join(
                  f"{n} {r.makespan/q.makespan:.3f}x {max(r.peak_memory_per_worker)/1e6:.0f} MB"
                  for n, r in out.items()), flush=True)
