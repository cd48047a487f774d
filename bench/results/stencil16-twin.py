"""stencil16: bench/distributed.py's stencil in the twin as a 1-thread LocalCluster runs it,
queue vs tidegate, and what the twin leaves out: the plugin's own scheduler CPU.

Durations measured on this machine for the LocalCluster's stencil (6000^2, chunks 1000):
a block's load (random_sample) 6-10 ms, an overlap (concatenate, _laplace, var) 25-34 ms,
a halo slice 0.05 ms: the overlaps, not the loads, hold the threads (the twin's default
model has it the other way round: 41 ms loads, 1-9 ms overlaps). ``--loop-lag`` (default
1 ms) stands for a LocalCluster's event loops (the twin's queue makespan at 2 x 1 is then
1.10 s, the quiet LocalCluster's 1.11-1.24 s).

``--charge-cpu``: the twin's scheduler spends a fixed ``scheduler_time`` per message,
whatever the policy does in it. With this flag it also spends, on the virtual clock, the
thread CPU measured around each piece of scheduler work (dask's handlers and the plugin's
hooks): what a real scheduler sharing 2 cores with its workers pays. For diagnosis only:
results then follow the machine's load and are not reproducible.

Per run: makespan, peak per worker, bytes moved, and the plugin's placements
(``Plugin._place`` calls: one meeting walk each).

    PYTHONPATH=$PWD/src python bench/results/stencil16-twin.py [--shapes 2x1,4x1]
        [--namings s0,...,s7] [--charge-cpu] [--out FILE.json]
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

import dask.array as da
import numpy as np

from tidegate.distributed import hooks
from tidegate.sim import cluster, simulate
from tidegate.sim.model import build_model

DURATIONS = {"random_sample": 0.007, "overlap-var": 0.025, "getitem": 5e-5}


def stencil(naming: str):
    """As bench/results/stencil14-twin.py: keys named by the random input's seed."""
    a = da.random.RandomState(int(naming[1:])).random((6000, 6000), chunks=1000)
    return a.map_overlap(np.negative, depth=1, boundary="none").std(axis=0)


def charge_cpu() -> None:
    """Scheduler work also costs its measured thread CPU on the virtual clock: the next
    piece of scheduler work starts that much later."""
    def scheduler_work(self, fn, *args, messages: int = 1) -> None:
        start = max(self.clock.now, self._busy_until)
        self._busy_until = start + self.scheduler_time * messages

        def timed(*a):
            t0 = time.thread_time()
            fn(*a)
            self._busy_until = max(self._busy_until, self.clock.now) + time.thread_time() - t0

        self.clock.call_at_marked(self._busy_until, timed, *args)

    cluster.SimCluster.scheduler_work = scheduler_work


def count_placements() -> list:
    calls: list = []
    place = hooks.Plugin._place

    def counted(self, ts, stimulus_id=None):
        calls.append(1)
        return place(self, ts, stimulus_id)

    hooks.Plugin._place = counted
    return calls


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shapes", default="2x1,4x1")
    ap.add_argument("--namings", default="s0,s1,s2,s3,s4,s5,s6,s7")
    ap.add_argument("--loop-lag", type=float, default=1e-3)
    ap.add_argument("--charge-cpu", action="store_true")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    if args.charge_cpu:
        charge_cpu()
    calls = count_placements()
    rows = []
    for naming in args.namings.split(","):
        model = build_model(stencil(naming), sizes={"overlap-var": 24402, "var": 24402},
                            durations=DURATIONS)
        for shape in args.shapes.split(","):
            w, t = map(int, shape.split("x"))
            row = dict(naming=naming, shape=shape)
            for policy in ("queue", "tidegate"):
                del calls[:]
                cpu = time.process_time()
                r = simulate(model, workers=w, threads_per_worker=t, bandwidth="200MB/s",
                             policy=policy, record_memory=False, loop_lag=args.loop_lag)
                row[policy] = dict(makespan=r.makespan, peak=max(r.peak_memory_per_worker),
                                   moved=r.bytes_transferred, placements=len(calls),
                                   cpu_s=time.process_time() - cpu)
            q, g = row["queue"], row["tidegate"]
            row["ratio"] = g["makespan"] / q["makespan"]
            rows.append(row)
            print(f"{naming} {shape} makespan {row['ratio']:.3f}x ({q['makespan']:.3f}/"
                  f"{g['makespan']:.3f} s) peak {q['peak'] / 2**20:.0f}/{g['peak'] / 2**20:.0f} MiB"
                  f" moved {q['moved'] / 2**20:.0f}/{g['moved'] / 2**20:.0f} MiB placements "
                  f"{g['placements']} cpu {q['cpu_s']:.2f}/{g['cpu_s']:.2f} s", flush=True)
    for shape in args.shapes.split(","):
        rs = [r["ratio"] for r in rows if r["shape"] == shape]
        print(f"{shape}: makespan tidegate/queue median {statistics.median(rs):.3f} "
              f"({min(rs):.3f}-{max(rs):.3f})")
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"command": " ".join(sys.argv), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
