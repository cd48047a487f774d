"""one28 (issue 9 item 4, part 3): why policy.frees_slot on every worker raised the twin's
resample at 2 x 2 (res27: 1.04 -> 1.38x queuing's peak). The twin at the LocalCluster's
geometry with measured sizes and durations (bench/res27_twin.py's model: ERA-like store,
180 x 360, 30-day chunks), queue and tidegate with policy.FREES_SLOT_THREADS 1 (main: one-
thread workers only) and 99 (every worker), per graph build: busiest worker's peak and what
it held then (loads in memory, by group), makespan, bytes moved, and, from the plugin's
books log, how roots were admitted (refusals, completing passes).

    python bench/sessions/one28_twin_every.py [--builds 3] [--workers 2] [--threads 2]
        [--most 1,99] [--busy 2]
"""
import argparse
import collections
import os
import statistics
import sys
import tempfile

_here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # bench/
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _here]
sys.path.append(_here)

from dask.utils import key_split  # noqa: E402

import tidegate.policy as P  # noqa: E402
from tidegate.sim import simulate  # noqa: E402
from tidegate.sim.workloads import resample, resample_durations, resample_sizes  # noqa: E402
from twin_peaks import watch_workers  # noqa: E402

NY, NX = 180, 360


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--builds", type=int, default=3)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--most", default="1,99", help="policy.FREES_SLOT_THREADS values, each "
                    "optionally with its own BUSY_PASS as MOST:BUSY (busy29: 1:0,99:2)")
    ap.add_argument("--busy", type=int, default=0, help="policy.BUSY_PASS for tidegate")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args(argv)
    sizes, durations = resample_sizes(30, NY, NX), resample_durations(30, NY, NX)
    rows = collections.defaultdict(list)
    for b in range(a.builds):
        d = tempfile.mkdtemp(prefix="one28-twin-")
        w = resample(os.path.join(d, "in.zarr"), ny=NY, nx=NX)
        runs = [("queue", None)] + [("tidegate", m) for m in a.most.split(",")]
        for pol, most in runs:
            old = P.FREES_SLOT_THREADS, P.BUSY_PASS
            if most is not None:
                m, _, busy = most.partition(":")
                P.FREES_SLOT_THREADS, P.BUSY_PASS = int(m), int(busy) if busy else a.busy
            ran = collections.defaultdict(set)

            def held(worker):
                c = collections.Counter()
                for ts in worker.state.tasks.values():
                    if ts.state == "memory":
                        c[key_split(ts.key)] += ts.nbytes
                return (c,)

            with watch_workers(held, lambda wk, key: ran[wk.address].add(key)) as snap:
                r = simulate(w.graph, workers=a.workers, threads_per_worker=a.threads,
                             policy=pol, sizes=sizes, durations=durations)
            P.FREES_SLOT_THREADS, P.BUSY_PASS = old
            peak, addr = max((v[0], k) for k, v in snap.items())
            c = snap[addr][2]
            label = pol if most is None else f"{pol}/{most}"
            rows[label].append((peak / 1e6, r.makespan, r.bytes_transferred / 1e6))
            if not a.quiet:
                top = ", ".join(f"{g} {n / 1e6:.1f}" for g, n in c.most_common(4))
                print(f"build {b} {label:12} peak {peak / 1e6:6.1f} MB at t={snap[addr][1]:.2f} "
                      f"makespan {r.makespan:.3f} "
                      f"moved {r.bytes_transferred / 1e6:6.1f} MB | {top}",
                      flush=True)
    q = rows["queue"]
    for label, rs in rows.items():
        pr = [x[0] / y[0] for x, y in zip(rs, q)]
        tr = [x[1] / y[1] for x, y in zip(rs, q)]
        print(f"{label:12} peak/queue median {statistics.median(pr):.2f} "
              f"({min(pr):.2f}-{max(pr):.2f})"
              f"  time/queue {statistics.median(tr):.3f} ({min(tr):.3f}-{max(tr):.3f})"
              f"  moved MB {statistics.median([x[2] for x in rs]):.1f}")


if __name__ == "__main__":
    main()
