"""bench/twin_slow_worker.py --mode worker at 2 x 1 (default key names) over dask's
work-stealing interval (0.2-1.3 s: the tail's store steals land on its ticks): tidegate's
makespan and peak against queuing's per interval, and the median; ``--all`` slows every
task of the slow worker (namings_slow.slow_all), not only its loads.

    PYTHONPATH=src python bench/results/slow38-tools/scan_steal.py [--factors 2,3,4] [--all]
        [--set OFF_SLOWER=0,SLOW_STEAL=0]
"""
import argparse
import os
import statistics
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import dask  # noqa: E402
import namings_slow  # noqa: E402  (puts bench/ and tests/ on the path)
import twin_slow_worker as bench  # noqa: E402
from tidegate import policy  # noqa: E402

INTERVALS = ("0.2s", "0.5s", "0.7s", "1s", "1.3s")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--factors", default="2,3,4")
    ap.add_argument("--all", action="store_true")
    ap.add_argument("--set", default="")
    a = ap.parse_args()
    for kv in filter(None, a.set.split(",")):
        k, v = kv.split("=")
        setattr(policy, k, type(getattr(policy, k))(float(v)))
    if a.all:
        bench._slow_worker = namings_slow.slow_all
    for f in map(float, a.factors.split(",")):
        times, peaks, splits = [], [], []
        for iv in INTERVALS:
            with dask.config.set({"distributed.scheduler.work-stealing-interval": iv}):
                out = bench.run(f, mode="worker")
            t, q = out["tidegate"], out["queue"]
            times.append(t["makespan"] / q["makespan"])
            peaks.append(t["peak"] / q["peak"])
            splits.append("/".join(map(str, t["loads_per_worker"])))
        print(f"x{f}: time " + " ".join(f"{x:.3f}" for x in times)
              + f"  median {statistics.median(times):.3f}  peak "
              + " ".join(f"{x:.2f}" for x in peaks) + "  loads " + " ".join(splits), flush=True)


if __name__ == "__main__":
    main()
