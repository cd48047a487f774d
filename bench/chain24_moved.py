"""chain24: peak / makespan / bytes of the twin traces a pass bound moves (plugin
zarr-rechunk-add 4x1; sim_fingerprints' f-unique 4x2), under whatever tidegate is on PYTHONPATH.
``--one-thread``: every one-thread plugin fingerprint trace (zarr graphs and stencils at 4x1 and
2x1), tidegate only."""
import os, sys, tempfile
here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
sys.path.append(here)
import plugin_fingerprints as pf
from tidegate.sim import simulate

one_thread = "--one-thread" in sys.argv[1:]
folder = os.path.join(tempfile.gettempdir(), "tidegate-twin-zarr")
paths = pf._zarr_inputs(folder)
for name, opts, steps, popts, store in pf.configs("all" if one_thread else "both"):
    if one_thread:
        if opts.get("threads_per_worker") != 1 or name.startswith("sweep"):
            continue
    elif name not in ("zarr-rechunk-add", "store:zarr-rechunk-add", "zarr-vorticity-files",
                      "store:zarr-vorticity-files"):
        continue
    model = pf.config_model(name, steps, store, paths, folder)
    policies = ["tidegate"] if one_thread else ["queue", "tidegate"]
    for r in simulate(model, policy=policies, processes=1, **opts, **popts):
        print(f"{name:28s} {opts['workers']}x{opts['threads_per_worker']} {r.policy:9s} "
              f"peak {max(r.peak_memory_per_worker)/1e6:8.2f} MB  makespan {r.makespan:7.3f} s  "
              f"moved {r.bytes_transferred/1e6:8.2f} MB")
