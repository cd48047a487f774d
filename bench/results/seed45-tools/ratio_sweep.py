"""seed45: where does a staggered second unit pay? tests/test_handle_share.py's seed
slice-add (12 chunk pairs, loads 12 ms) on 8 x 4 in the twin with its store's duration
scaled so that (load + slice) / store runs from 0.05 (the measured seed) to 1; UNIT_STAGGER
0 against 1 (the stagger always), queue alongside; tidegate / queuing time and peak, median
over seeds, and mode 1's time over mode 0's.

    PYTHONPATH=src python bench/results/seed45-tools/ratio_sweep.py [--workers 8] [--seeds 3]
"""
import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "tests"))
import test_handle_share as H  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", type=int, default=8)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--lags", default="0.002,0.01")
    a = ap.parse_args()
    from tidegate import policy
    from tidegate.sim import simulate

    load = H.DURATIONS["from-zarr-a-getitem"] + H.DURATIONS["getitem"]
    for ratio in (0.05, 0.1, 0.15, 0.2, 0.25, 0.35, 0.5, 0.75, 1.0):
        H.DURATIONS["store-map"] = load / ratio
        model = H._slice_add()
        for lag in map(float, a.lags.split(",")):
            rows = {0: [], 1: []}
            for seed in range(a.seeds):
                for v in (0, 1):
                    policy.UNIT_STAGGER = v
                    q, t = simulate(model, workers=a.workers, threads_per_worker=4,
                                    bandwidth=200e6, outgoing_bandwidth=200e6, latency=0.001,
                                    thread_lag=lag, seed=seed, policy=["queue", "tidegate"],
                                    record_memory=False, processes=1)
                    rows[v].append((t.makespan / q.makespan,
                                    max(t.peak_memory_per_worker) / max(q.peak_memory_per_worker),
                                    t.makespan))
            med = {v: [statistics.median(r[i] for r in rows[v]) for i in range(3)] for v in rows}
            cost = statistics.median(b[2] / a_[2] for a_, b in zip(rows[0], rows[1]))
            print(f"ratio {ratio:.2f} store {load / ratio:.3f}s lag {lag}: "
                  f"0: {med[0][0]:.3f}/{med[0][1]:.3f}  1: {med[1][0]:.3f}/{med[1][1]:.3f}  "
                  f"time 1 / 0 {cost:.3f}", flush=True)


if __name__ == "__main__":
    main()
