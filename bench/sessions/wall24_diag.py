"""Where a twin run of one bench/distributed.py workload loses time: per worker, busy
seconds, roots run, idle gaps (no task running while the run is not over), and the tasks
around each gap; queue beside tidegate.

    python bench/sessions/wall24_diag.py stencil --shape 4x1 --lag 0.005 --seed 0 [--gap 0.01]
"""

from __future__ import annotations

import argparse
import collections
import math
import os
import sys

_here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # bench/
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _here]
sys.path.insert(0, _here)

from wall24_twin import _bench, model_of as _model_of  # noqa: E402
from pathlib import Path  # noqa: E402

from tidegate.sim import simulate  # noqa: E402


def model_of(name, steps=48, reps=3):
    bd = _bench()
    bd._INPUTS["steps"] = steps
    return _model_of(bd, name, steps, reps, Path(_here) / "results" / "wall24-measured.json")


def run(model, shape, lag, seed, policy, **kw):
    w, t = map(int, shape.split("x"))
    return simulate(model, workers=w, threads_per_worker=t, policy=policy, bandwidth=200e6,
                    outgoing_bandwidth=math.inf, latency=0.001, thread_lag=lag, seed=seed,
                    **kw)


def describe(r, gap, show=8):
    tasks = sorted(r.trace.tasks, key=lambda t: t.start)
    end = r.makespan
    by = collections.defaultdict(list)
    for t in tasks:
        by[t.worker].append(t)
    print(f"  makespan {end:.3f}  peak {max(r.peak_memory_per_worker) / 1e6:.0f} MB  "
          f"moved {r.bytes_transferred / 1e6:.0f} MB")
    rows = sorted(by.items())
    for w, ts in list(rows):
        threads = sorted({t.thread for t in ts})
        if len(threads) > 1:
            rows += [(f"{w}/t{th}", [t for t in ts if t.thread == th]) for th in threads]
    for w, ts in rows:
        busy = sum(t.stop - t.start for t in ts)
        roots = sum(t.root for t in ts)
        # idle: union of running intervals (threads), gaps between
        iv = sorted((t.start, t.stop) for t in ts)
        gaps, cur = [], 0.0
        for a, b in iv:
            if a - cur > gap:
                gaps.append((cur, a))
            cur = max(cur, b)
        if end - cur > gap:
            gaps.append((cur, end))
        idle = sum(b - a for a, b in gaps)
        print(f"  {w[-12:]}: {len(ts)} tasks, {roots} roots, busy {busy:.3f} s, "
              f"idle gaps>{gap * 1e3:.0f}ms {len(gaps)} = {idle:.3f} s, last end {cur:.3f}")
        for a, b in gaps[:show]:
            before = [t for t in ts if t.stop <= a + 1e-9][-1:]
            after = [t for t in ts if t.start >= b - 1e-9][:1]
            print(f"     gap {a:.3f}-{b:.3f} ({(b - a) * 1e3:.0f} ms) after "
                  f"{[x.key for x in before]} before {[x.key for x in after]}")


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("name")
    ap.add_argument("--shape", default="4x1")
    ap.add_argument("--lag", type=float, default=0.005)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--gap", type=float, default=0.01)
    ap.add_argument("--show", type=int, default=8)
    args = ap.parse_args(argv)
    model = model_of(args.name)
    for p in ("queue", "tidegate"):
        print(p)
        describe(run(model, args.shape, args.lag, args.seed, p), args.gap, args.show)


if __name__ == "__main__":
    main()
