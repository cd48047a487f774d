"""probe25: peak / makespan / bytes of plugin-fingerprint twin traces whose name is given
(exact, e.g. running-total store:running-total), queue and tidegate, under whatever
tidegate is on PYTHONPATH (PROBE25_EXP for the switches while they exist)."""
import os, sys, tempfile
here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
sys.path.append(here)
import plugin_fingerprints as pf
from tidegate.sim import simulate

names = set(sys.argv[1:])
folder = os.path.join(tempfile.gettempdir(), "tidegate-twin-zarr")
paths = pf._zarr_inputs(folder)
for name, opts, steps, popts, store in pf.configs("all"):
    if name not in names:
        continue
    model = pf.config_model(name, steps, store, paths, folder)
    for r in simulate(model, policy=["queue", "tidegate"], processes=1, **opts, **popts):
        print(f"{name:24s} {opts['workers']}x{opts['threads_per_worker']} {popts or ''} {r.policy:9s} "
              f"peak {max(r.peak_memory_per_worker)/1e6:8.2f} MB  makespan {r.makespan:7.3f} s  "
              f"moved {r.bytes_transferred/1e6:8.2f} MB", flush=True)
