"""Numbers behind plugin_fingerprints' configurations (peak per worker, makespan, bytes
moved), for the labels given, under the code on PYTHONPATH (onepolicy10, session 10).

    PYTHONHASHSEED=0 PYTHONPATH=<src> python bench/results/onepolicy10_numbers.py \
        --policies tidegate,queue 'slice-add|' 'store:vorticity|'
A label matches when it starts with one of the given prefixes."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile

_bench = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, _bench)
import plugin_fingerprints as pf  # noqa: E402

from tidegate.sim import simulate  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("prefixes", nargs="+")
    ap.add_argument("--policies", default="tidegate")
    args = ap.parse_args()

    folder = os.path.join(tempfile.gettempdir(), "tidegate-twin-zarr")
    paths = pf._zarr_inputs(folder)
    for name, opts, steps, popts, store in pf.configs("both"):
        label = f"{name}|{opts}|{steps}|{popts}"
        if not any(label.startswith(p) for p in args.prefixes):
            continue
        model = pf.config_model(name, steps, store, paths, folder)
        for policy in args.policies.split(","):
            r = simulate(model, policy=policy, **opts, **(popts if policy == "tidegate" else {}))
            print(f"{policy:8s} {label}: peak {max(r.peak_memory_per_worker) / 1e9:.3f} GB"
                  f" makespan {r.makespan:.2f} s moved {r.bytes_transferred / 1e9:.2f} GB",
                  flush=True)


if __name__ == "__main__":
    main()
