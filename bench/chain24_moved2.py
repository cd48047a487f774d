"""chain24: peak / makespan / bytes of the one-thread plugin fingerprint traces (zarr graphs
and stencils at 4x1 and 2x1) under whatever tidegate is on PYTHONPATH."""
import os, sys, tempfile
here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
sys.path.append(here)
import plugin_fingerprints as pf
from tidegate.sim import simulate

folder = os.path.join(tempfile.gettempdir(), "tidegate-twin-zarr")
paths = pf._zarr_inputs(folder)
for name, opts, steps, popts, store in pf.configs("all"):
    if opts.get("threads_per_worker") != 1 or name.startswith("sweep"):
        continue
    model = pf.config_model(name, steps, store, paths, folder)
    r = simulate(model, policy="tidegate", **opts, **popts)
    print(f"{name:28s} {opts['workers']}x1 peak {max(r.peak_memory_per_worker)/1e6:8.2f} MB  "
          f"makespan {r.makespan:7.3f} s  moved {r.bytes_transferred/1e6:8.2f} MB")
