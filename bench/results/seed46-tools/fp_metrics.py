"""Makespan, largest worker peak and bytes moved of plugin_fingerprints' configurations
with policy switches old vs new, senders limited (the fingerprints' setting) and free.

    PYTHONHASHSEED=0 PYTHONPATH=src python bench/results/anom38-tools/fp_metrics.py \
        --switch BROADCAST_LEARN --old 0 --new 1 [--match anomaly,weighted] [--outgoing both]
"""
import argparse
import math
import os
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.abspath(os.path.join(here, "..", "..")))
import plugin_fingerprints as P  # noqa: E402

from tidegate import policy  # noqa: E402
from tidegate.sim import simulate  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--switch", default="BROADCAST_LEARN")
    ap.add_argument("--old", default="0")
    ap.add_argument("--new", default="1")
    ap.add_argument("--match", default="anomaly,weighted,vorticity,sweep,weights")
    ap.add_argument("--outgoing", default="both", choices=("both", "limited", "free"))
    a = ap.parse_args()
    folder = os.path.join(tempfile.gettempdir(), "tidegate-twin-zarr")
    paths = P._zarr_inputs(folder)
    names = a.switch.split(",")
    olds, news = a.old.split(","), a.new.split(",")
    outs = {"both": ("limited", "free"), "limited": ("limited",), "free": ("free",)}[a.outgoing]
    for name, opts, steps, popts, store in P.configs("all"):
        if not any(m in name for m in a.match.split(",")):
            continue
        model = P.config_model(name, steps, store, paths, folder)
        for out in outs:
            extra = {} if out == "limited" else {"outgoing_bandwidth": math.inf}
            res = []
            for vals in (olds, news):
                for n, v in zip(names, vals):
                    setattr(policy, n, type(getattr(policy, n))(float(v)))
                r = simulate(model, policy="tidegate", **opts, **popts, **extra)
                res.append((r.makespan, max(r.peak_memory_per_worker), r.bytes_transferred))
            (m0, p0, b0), (m1, p1, b1) = res
            print(f"{name}|{opts.get('workers')}x{opts.get('threads_per_worker')}|"
                  f"{opts.get('bandwidth')}|{popts or ''} {out}: time {m0:.3f} -> {m1:.3f} "
                  f"({m1 / m0:.3f}) peak {p0 / 1e6:.0f} -> {p1 / 1e6:.0f} MB moved "
                  f"{b0 / 1e6:.0f} -> {b1 / 1e6:.0f} MB", flush=True)


if __name__ == "__main__":
    main()
