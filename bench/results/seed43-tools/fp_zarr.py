"""One plugin fingerprint configuration's zarr graph (bench/plugin_fingerprints.py's
``zarr-NAME`` at 4 x 1, 200 MB/s) in the twin: queuing's and tidegate's makespan, peak
and bytes moved with a policy switch at each value given.

    PYTHONHASHSEED=0 PYTHONPATH=src python bench/results/seed43-tools/fp_zarr.py rechunk-add \
        HANDLE_UNOWE 0 1 [--store]
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import plugin_fingerprints as pf  # noqa: E402

from tidegate import policy  # noqa: E402
from tidegate.sim import simulate  # noqa: E402

name, switch, *values = [a for a in sys.argv[1:] if a != "--store"]
store = "--store" in sys.argv
folder = os.path.join(tempfile.gettempdir(), "tidegate-twin-zarr")
paths = pf._zarr_inputs(folder)
model = pf.config_model(("store:" if store else "") + "zarr-" + name, None, store, paths, folder)
opts = dict(workers=4, threads_per_worker=1, bandwidth="200MB/s")
q = simulate(model, policy="queue", **opts)
print(f"queue: time {q.makespan:.3f} peak {max(q.peak_memory_per_worker) / 1e6:.0f} MB "
      f"moved {q.bytes_transferred / 1e6:.0f} MB")
for v in values:
    setattr(policy, switch, type(getattr(policy, switch))(eval(v)))
    r = simulate(model, policy="tidegate", **opts)
    print(f"{switch}={v}: time {r.makespan:.3f} peak {max(r.peak_memory_per_worker) / 1e6:.0f} MB "
          f"moved {r.bytes_transferred / 1e6:.0f} MB peaks "
          f"{[round(p / 1e6) for p in r.peak_memory_per_worker]}")
