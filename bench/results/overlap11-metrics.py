"""overlap11: peak per worker, makespan and bytes moved of plugin_fingerprints' 50 configs.

    PYTHONHASHSEED=0 PYTHONPATH=<src> python bench/results/overlap11-metrics.py OUT.json [tidegate|queue] [label-substring,...]
"""
import json, os, sys, tempfile
sys.path.insert(0, os.path.join(os.getcwd(), "bench"))
import plugin_fingerprints as pf
from tidegate.sim import simulate

out, policy = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else "tidegate")
only = sys.argv[3].split(",") if len(sys.argv) > 3 else None
folder = os.path.join(tempfile.gettempdir(), "tidegate-twin-zarr")
paths = pf._zarr_inputs(folder)
res = {}
for name, opts, steps, popts, store in pf.configs():
    label = f"{name}|{opts}|{steps}|{popts}"
    if only and not any(s in label for s in only):
        continue
    model = pf.config_model(name, steps, store, paths, folder)
    r = simulate(model, policy=policy, **opts, **(popts if policy == "tidegate" else {}))
    res[label] = (max(r.peak_memory_per_worker), r.makespan, r.bytes_transferred)
    print(label, res[label], flush=True)
json.dump(res, open(out, "w"), indent=1)
