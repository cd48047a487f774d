"""fp22: metrics of six plugin_fingerprints shapes under the code on PYTHONPATH (to show how
a perturbation moved the traces, bench/results/fp22-perturbations.txt).

    PYTHONHASHSEED=0 PYTHONPATH=<src> python bench/results/fp22_metrics.py
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import plugin_fingerprints as pf  # noqa: E402

from tidegate.sim import simulate  # noqa: E402

WANT = ["stencil-6000-s7|4x1", "stencil-6000-s0|4x2", "stencil-20000-s1|20x4",
        "sweep-300x4000000|4x1", "sweep-1000x40000000|20x4", "weights-s0|12x2"]
for name, opts, popts in pf.shapes():
    tag = f"{name}|{opts['workers']}x{opts['threads_per_worker']}"
    if tag not in WANT or popts:
        continue
    r = simulate(pf.shape_model(name), policy="tidegate", **opts, **popts)
    print(tag, dict(digest=pf.digest(r), makespan=round(r.makespan, 3),
                    moved_MB=round(r.bytes_transferred / 1e6, 2),
                    peak_MB=round(max(r.peak_memory_per_worker) / 1e6, 2),
                    transfers=len(r.trace.transfers),
                    blocks_moved=sum(t.nbytes >= 8e6 for t in r.trace.transfers)), flush=True)
