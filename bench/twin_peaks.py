"""What each twin worker holds at its peak, by task group, computed there or copied in;
and the roots-in-flight and held-bytes profile over the run, per tenth of the makespan.

Answers "does this policy hold more than the graph needs, and what": e.g. the anomaly
holds every loaded chunk until the mean is known (steps x chunk / workers is the floor of
any order), its excess is the reduction's partials; rechunk-add's peak is the ramp.

    python bench/twin_peaks.py anomaly --workers 20 [--steps 1000] [--policies queue,tidegate]

The twin's worker class is wrapped (its stimulus handler and task end) while each policy
runs (watch_workers, also bench/twin_anomaly_layout.py's): the breakdown is read from dask's
own WorkerState after each stimulus that raises the worker's peak.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import json
import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _here]

from dask.utils import key_split  # noqa: E402

from tidegate.sim import simulate  # noqa: E402
from tidegate.sim import worker as simworker  # noqa: E402
from tidegate.sim.workloads import WORKLOADS, build  # noqa: E402

TENTHS = 10


@contextlib.contextmanager
def watch_workers(snapshot, ended):
    """The twin's worker class wrapped (its stimulus handler and task end) for the ``with``
    block. Yields ``{address: (peak bytes, time, *snapshot(worker))}``, taken each time a
    worker's held bytes pass its peak so far; ``ended(worker, key)`` as each task ends, before
    the worker's books see it."""
    snap: dict = {}
    cls = simworker.SimWorker
    handle, finished = cls.handle_stimulus, cls._finished

    def handle_stimulus(self, *events):
        out = handle(self, *events)
        n = self.state.nbytes
        if n > snap.get(self.address, (0,))[0]:
            snap[self.address] = (n, self.clock.now, *snapshot(self))
        return out

    def _finished(self, key, *args):
        ended(self, key)
        return finished(self, key, *args)

    cls.handle_stimulus, cls._finished = handle_stimulus, _finished
    try:
        yield snap
    finally:
        cls.handle_stimulus, cls._finished = handle, finished


def add_cluster_args(ap, steps: int) -> None:
    """The twin's cluster and the seed workload's size, as these scripts take them."""
    ap.add_argument("--workers", type=int, default=20)
    ap.add_argument("--threads", type=int, default=4)
    ap.add_argument("--steps", type=int, default=steps)
    ap.add_argument("--chunk", type=float, default=190e6)
    ap.add_argument("--bandwidth", default="1e9")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("workload", choices=sorted(WORKLOADS))
    add_cluster_args(ap, steps=1000)
    ap.add_argument("--policies", default="eager,queue,tidegate")
    ap.add_argument("--top", type=int, default=3, help="busiest workers shown")
    ap.add_argument("--out", default=None, help="JSON of the summary")
    args = ap.parse_args(argv)
    ran: dict = collections.defaultdict(set)

    def held_by_group(worker):
        """Counter of (group, here|copy) -> bytes in memory on the worker."""
        mine = ran[worker.address]
        c: collections.Counter = collections.Counter()
        for ts in worker.state.tasks.values():
            if ts.state == "memory":
                c[(key_split(ts.key), "here" if ts.key in mine else "copy")] += ts.nbytes
        return (c,)

    model = build(args.workload, args.steps, args.chunk, store=False).model()
    out = {"command": "python bench/twin_peaks.py " + " ".join(argv or sys.argv[1:]),
           "results": {}}
    for p in args.policies.split(","):
        ran.clear()
        with watch_workers(held_by_group, lambda w, key: ran[w.address].add(key)) as snap:
            r = simulate(model, workers=args.workers, threads_per_worker=args.threads,
                         policy=p, bandwidth=args.bandwidth, record_memory=True)
        peaks = sorted(((v[0], a) for a, v in snap.items()), reverse=True)
        gb = 1e9
        print(f"== {args.workload} {p} {args.workers}x{args.threads}: peak {peaks[0][0] / gb:.2f}"
              f" GB (mean over workers {sum(n for n, _ in peaks) / len(peaks) / gb:.2f}), "
              f"makespan {r.makespan:.1f} s, moved {r.bytes_transferred / gb:.1f} GB")
        top = []
        for n, a in peaks[:args.top]:
            _, t, c = snap[a]
            parts = {f"{g}/{o}": round(b / gb, 2) for (g, o), b in c.most_common() if b}
            top.append({"worker": a, "peak_gb": round(n / gb, 2), "time": round(t, 2),
                        "held": parts})
            print(f"  {a} {n / gb:.2f} GB at t={t:.1f}:",
                  ", ".join(f"{k} {v:.2f}" for k, v in parts.items()))
        # held bytes and roots in flight per tenth of the run: a ramp peak or a steady one?
        span = r.makespan or 1.0
        held = collections.defaultdict(lambda: [0] * TENTHS)
        rif = [0] * TENTHS
        for m in r.trace.memory:
            b = min(TENTHS - 1, int(m.time / span * TENTHS))
            held[m.worker][b] = max(held[m.worker][b], m.held)
            rif[b] = max(rif[b], m.roots_in_flight)
        tenths = [round(max(v[b] for v in held.values()) / gb, 2) for b in range(TENTHS)]
        print("  busiest worker's held GB per tenth of the run:", *tenths)
        print("  most roots in flight on a worker per tenth:   ", *rif)
        out["results"][p] = {"peak_gb": round(peaks[0][0] / gb, 2), "makespan": r.makespan,
                             "moved_gb": round(r.bytes_transferred / gb, 1), "top": top,
                             "held_gb_per_tenth": tenths, "roots_in_flight_per_tenth": rif}
    if args.out:
        with open(args.out, "w") as f:
            json.dump(out, f, indent=1)
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
