"""Where the twin's anomaly (``a - a.mean(axis=0)``) put each load, and what the busiest
workers held at their peak, task by task: for judging a placement rule on the mean's tree
reduction (issue 9, lvl26-findings.txt).

    python bench/twin_anomaly_layout.py --steps 200 --workers 20 [--policy tidegate]
        [--top 3] [--parents 13] [--timeline w01]

Prints, for the ``--top`` busiest workers, the tasks over 1 MB in memory at the peak (the
loads left out: every worker holds all its loads until the mean is known) and what
was executing or ready there; for the first ``--parents`` level-2 combines, the worker and
finish time of each load of each of their 4 groups of 4 (dask's split_every for this
graph; "P9: w01@2.3 ..." = parent 9's loads); with ``--timeline W``, every task end on
worker W up to ``--tmax`` s with its held bytes after. The twin's worker class is wrapped
while the twin runs (bench/twin_peaks.py's watch_workers).
"""

from __future__ import annotations

import argparse
import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _here]

from dask.utils import key_split  # noqa: E402

from tidegate.sim import simulate  # noqa: E402
from tidegate.sim.workloads import build  # noqa: E402

sys.path.append(_here)
from twin_peaks import add_cluster_args, watch_workers  # noqa: E402


def _short(key) -> str:
    if isinstance(key, tuple):
        return f"{key_split(key[0])[:14]}{key[1:2]}"
    return key_split(key)[:14]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_cluster_args(ap, steps=200)
    ap.add_argument("--policy", default="tidegate")
    ap.add_argument("--top", type=int, default=3)
    ap.add_argument("--parents", type=int, default=13)
    ap.add_argument("--timeline", default=None, help="a worker, e.g. w01")
    ap.add_argument("--tmax", type=float, default=6.0)
    args = ap.parse_args(argv)
    ends: list = []

    def at_peak(worker):
        """(loads held, other tasks over 1 MB held, tasks executing or ready)."""
        tasks = worker.state.tasks.values()
        held = [_short(t.key) for t in tasks if t.state == "memory" and t.nbytes > 1e6
                and not key_split(t.key).startswith("open")]
        loads = sum(1 for t in tasks if t.state == "memory"
                    and key_split(t.key).startswith("open") and t.nbytes > 1e6)
        busy = [_short(t.key) for t in tasks if t.state in ("executing", "ready")]
        return loads, held, busy

    def ended(worker, key):
        ends.append((worker.clock.now, worker.address, key, worker.state.nbytes))

    model = build("anomaly", args.steps, args.chunk, store=False).model()
    with watch_workers(at_peak, ended) as snap:
        r = simulate(model, workers=args.workers, threads_per_worker=args.threads,
                     policy=args.policy, bandwidth=args.bandwidth)
    gb = 1e9
    print(f"anomaly {args.steps} steps {args.policy} {args.workers}x{args.threads}: peak "
          f"{max(r.peak_memory_per_worker) / gb:.2f} GB, makespan {r.makespan:.2f} s, "
          f"moved {r.bytes_transferred / gb:.1f} GB")
    for a, (n, t, loads, held, busy) in sorted(snap.items(), key=lambda kv: -kv[1][0])[:args.top]:
        print(f"  {a} {n / gb:.2f} GB at t={t:.2f}: {loads} loads; held {' '.join(held)};"
              f" executing/ready {' '.join(busy) or '-'}")
    where = {}
    for t, a, k, _ in ends:
        if isinstance(k, tuple) and key_split(k[0]).startswith("open"):
            where[k[1]] = (a.rsplit("-", 1)[-1].split(":")[0], t)
    groups = (args.steps + 3) // 4
    for p in range(min(args.parents, (groups + 3) // 4)):
        parts = []
        for g in range(4 * p, min(4 * p + 4, groups)):
            parts.append(" ".join(f"{where[i][0]}@{where[i][1]:.1f}"
                                  for i in range(4 * g, min(4 * g + 4, args.steps)) if i in where))
        print(f"  P{p}: " + " | ".join(parts))
    if args.timeline:
        for t, a, k, n in ends:
            if a.rsplit("-", 1)[-1].split(":")[0] == args.timeline and t <= args.tmax:
                print(f"    {t:6.2f} {_short(k):22s} held after {n / gb:.2f} GB")


if __name__ == "__main__":
    main()
