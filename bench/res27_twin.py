"""res27 (issue 9): the resample-store chain in the twin at the LocalCluster's geometry
(probe24: 180 x 360 planes, 30-day chunks of 15.6 MB), with the sizes and durations of
the real graph (measured on the sync scheduler over bench/probe24_cluster.py's store:
a load 16 ms, a week's fused mean+store 7.8 ms and 16 bytes, a straddled week's
getitem+mean_chunk 1 ms and two planes; store-map 16 bytes), against the default twin
(chain24's model, ``--model chain24``: every store-map and fused week a day's plane,
which piles up to the end and hides the loads: bench/results/res27-findings.txt).

    python bench/res27_twin.py [--builds 3] [--workers 2] [--threads 1] [--model real|chain24]
        [--frees-slot]
"""
import argparse
import os
import statistics
import tempfile

from dask.utils import key_split

from tidegate.sim import simulate
from tidegate.sim.workloads import resample, resample_durations, resample_sizes

NY, NX, CHUNK = 180, 360, 30
PLANE = NY * NX * 8
real_size = resample_sizes(CHUNK, NY, NX)  # (measured: in tidegate.sim.workloads since
real_duration = resample_durations(CHUNK, NY, NX)  # session 27)


def chain24_sizes(chunk=30, ny=90, nx=180):
    """chain24's model (the workloads' before session 27): a load its chunk; a week's
    slice of one 3.5 days' planes; a mean_chunk two; every other task a day's plane."""
    day = ny * nx * 8
    by_group = {"getitem": 3.5 * day, "mean_chunk": 2 * day}

    def size(key):
        name = key_split(key)
        return chunk * day if name.startswith("open_dataset") else by_group.get(name, day)

    return size


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--builds", type=int, default=3)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--model", default="real", choices=["real", "chain24"])
    ap.add_argument("--loop-lag", type=float, default=0.0)
    ap.add_argument("--frees-slot", type=int, default=0, help="policy.FREES_SLOT (bits)")
    a = ap.parse_args(argv)
    if a.frees_slot:
        import tidegate.policy

        tidegate.policy.FREES_SLOT = a.frees_slot
    ratios = []
    for b in range(a.builds):
        d = tempfile.mkdtemp(prefix="res27-twin-")
        if a.model == "real":
            w = resample(os.path.join(d, "in.zarr"), ny=NY, nx=NX)
            kw = dict(sizes=real_size, durations=real_duration)
        else:
            w = resample(os.path.join(d, "in.zarr"))
            kw = dict(sizes=chain24_sizes())
        rs = simulate(w.graph, workers=a.workers, threads_per_worker=a.threads,
                      policy=["queue", "tidegate"], loop_lag=a.loop_lag, **kw)
        q, t = rs
        pq, pt = max(q.peak_memory_per_worker) / 1e6, max(t.peak_memory_per_worker) / 1e6
        ratios.append(pt / pq)
        print(f"build {b}: queue peak {pq:.1f} MB makespan {q.makespan:.3f}  tidegate peak "
              f"{pt:.1f} MB makespan {t.makespan:.3f}  ratio {pt / pq:.2f} "
              f"time {t.makespan / q.makespan:.2f}")
    print(f"median ratio {statistics.median(ratios):.2f} ({min(ratios):.2f}-{max(ratios):.2f})")


if __name__ == "__main__":
    main()
