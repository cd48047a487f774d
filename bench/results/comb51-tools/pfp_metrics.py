"""(anom47's tool, against lead50b's reference; the digest of the rule off also compared
with comb51's branch run, /tmp/comb51/fp.json.) Metrics of the plugin_fingerprints configs
that COMBINE_LEVELS moved: queue, then tidegate
with the switch 0 (main's: its digest should be the reference's) and 1.

    PYTHONHASHSEED=0 PYTHONPATH=src python bench/results/comb51-tools/pfp_metrics.py
"""
import json
import os
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(here)))
import plugin_fingerprints as pf  # noqa: E402

from tidegate import policy  # noqa: E402
from tidegate.sim import simulate  # noqa: E402

WANT = sys.argv[1:] or [
    "anomaly|{'workers': 20, 'threads_per_worker': 4, 'bandwidth': '1GB/s'}|300|{}",
    "store:anomaly|{'workers': 20, 'threads_per_worker': 4, 'bandwidth': '1GB/s'}|300|{}",

    "stencil-20000-s1|{'workers': 20, 'threads_per_worker': 4, 'bandwidth': '200MB/s'}|None|{}",
]
ref = json.load(open(os.path.join(os.path.dirname(here), "plugin_fingerprints-lead50b.json")))
branch = json.load(open("/tmp/comb51/fp.json"))
folder = os.path.join(tempfile.gettempdir(), "tidegate-twin-zarr")
paths = pf._zarr_inputs(folder)
for name, opts, steps, popts, store in pf.configs("all"):
    label = f"{name}|{opts}|{steps}|{popts}"
    if label not in WANT:
        continue
    out = {}
    for tag, val in (("queue", None), ("off", 0), ("on", 1)):
        model = pf.config_model(name, steps, store, paths, folder)
        if val is not None:
            policy.COMBINE_LEVELS = val
        r = simulate(model, policy="queue" if val is None else "tidegate", **opts, **popts)
        out[tag] = dict(peak_GB=round(max(r.peak_memory_per_worker) / 1e9, 3),
                        makespan=round(r.makespan, 3),
                        moved_GB=round(r.bytes_transferred / 1e9, 2))
        if val is not None:
            out[tag]["digest_is_ref"] = pf.digest(r) == ref.get(label)
            out[tag]["digest_is_branch"] = pf.digest(r) == branch.get(label)
    print(label, json.dumps(out), flush=True)
