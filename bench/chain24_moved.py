"""chain24: peak / makespan / bytes of the twin traces a pass bound moves (plugin
zarr-rechunk-add 4x1; sim_fingerprints' f-unique 4x2), under whatever tidegate is on PYTHONPATH."""
import os, sys, tempfile
here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
sys.path.append(here)
import plugin_fingerprints as pf
from tidegate.sim import simulate

folder = os.path.join(tempfile.gettempdir(), "tidegate-twin-zarr")
paths = pf._zarr_inputs(folder)
for name, opts, steps, popts, store in pf.configs("both"):
    if name not in ("zarr-rechunk-add", "store:zarr-rechunk-add", "zarr-vorticity-files", "store:zarr-vorticity-files"):
        continue
    model = pf.config_model(name, steps, store, paths, folder)
    for r in simulate(model, policy=["queue", "tidegate"], processes=1, **opts, **popts):
        print(f"{name:28s} {r.policy:9s} peak {max(r.peak_memory_per_worker)/1e6:8.1f} MB  "
              f"makespan {r.makespan:7.3f} s  moved {r.bytes_transferred/1e6:8.1f} MB")
