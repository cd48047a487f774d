"""Metrics of plugin_fingerprints configurations (by label substring), tidegate and queue:
makespan, peak per worker, bytes moved. Run once per code base (PYTHONPATH) to see how
traces that moved changed.

    python bench/wall24_moved.py "stencil-12000-s3" "store:vorticity|{'workers': 20" ...
"""
import json
import os
import sys
import tempfile

_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _here]
sys.path.insert(0, _here)

from plugin_fingerprints import _zarr_inputs, config_model, configs  # noqa: E402

from tidegate.sim import simulate  # noqa: E402


def main(argv):
    folder = os.path.join(tempfile.gettempdir(), "tidegate-fp-zarr")
    paths = _zarr_inputs(folder)
    out = {}
    for name, opts, steps, popts, store in configs("all"):
        label = f"{name}|{opts}|{steps}|{popts}"
        if not any(a in label for a in argv):
            continue
        model = config_model(name, steps, store, paths, folder)
        row = {}
        for p in ("queue", "tidegate"):
            r = simulate(model, policy=p, **opts, **(popts if p == "tidegate" else {}),
                         record_memory=False)
            row[p] = dict(makespan=r.makespan, peak=max(r.peak_memory_per_worker),
                          moved=r.bytes_transferred)
        q, t = row["queue"], row["tidegate"]
        print(f"{label}: tidegate makespan {t['makespan']:.3f} peak {t['peak'] / 1e6:.1f} MB "
              f"moved {t['moved'] / 1e6:.1f} MB | queue {q['makespan']:.3f} {q['peak'] / 1e6:.1f} "
              f"{q['moved'] / 1e6:.1f}", flush=True)
        out[label] = row
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1:])
