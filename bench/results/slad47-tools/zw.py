# slad47 (small46's zw.py, FURTHER_GATHER 0 / 1 / 2): plugin_fingerprints' store:zarr-weighted 4x1,
# queue alongside: makespan, peaks, bytes (PYTHONPATH=src python zw.py [NAME] [WxT])
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import plugin_fingerprints as pf  # noqa: E402

from tidegate import policy  # noqa: E402
from tidegate.sim import simulate  # noqa: E402

name = sys.argv[1] if len(sys.argv) > 1 else "store:zarr-weighted"
W, T = map(int, (sys.argv[2] if len(sys.argv) > 2 else "4x1").split("x"))
with tempfile.TemporaryDirectory(prefix="small46-") as folder:
    paths = pf._zarr_inputs(folder)
    model = pf.config_model(name, None, name.startswith("store:"), paths, folder)
    opts = dict(workers=W, threads_per_worker=T, bandwidth="200MB/s")
    q = simulate(model, policy="queue", **opts)
    print("queue", round(q.makespan, 3), [round(x / 1e6) for x in q.peak_memory_per_worker],
          round(q.bytes_transferred / 1e6))
    for fg in (0, 1, 2):
        policy.FURTHER_GATHER = fg
        r = simulate(model, policy="tidegate", **opts)
        print("FURTHER_GATHER", fg, pf.digest(r), round(r.makespan, 3),
              [round(x / 1e6) for x in r.peak_memory_per_worker],
              round(r.bytes_transferred / 1e6))
