"""Widely shared inputs: one weight array used by every row block (``(x @ w).sum(axis=1)``),
in the twin at 20 and 100 workers x 2 threads, dask's queuing vs tidegate's plugin with its
broadcast waves off (``tidegate.distributed.broadcast: false``) and on, side by side.

The network is limited (1 GB/s per worker in, and out: a sender's link is shared by the
copies it sends), so 99 workers pulling the 8 MB weights from their one holder queue there.
Per run: how often the weights moved to each worker (at most once is the goal), how many
workers sent copies, bytes transferred in all and of the weights, the time each worker
waits for the weights (from when they exist to when its copy lands: sum and max over
workers), peak memory of the busiest worker, and the makespan (virtual seconds). The same
pipeline without weights (``x * 2``: fused into one task per block) is the baseline for
peak memory.

With ``--cluster``, also a LocalCluster (4 workers x 2 threads, in one process, spilling
and pausing off), dask's queuing vs the plugin: weight moves per worker (from each
worker's ``transfer_incoming_log``), bytes received per worker, peak managed bytes of the
busiest worker (``worker.state.nbytes`` at every transition).

    python bench/broadcast_weights.py [--workers 20 100] [--cluster]
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import sys
from pathlib import Path

# bench/distributed.py shadows the library: keep this folder off the import path.
_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _here]

import dask.array as da  # noqa: E402
from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

import tidegate  # noqa: E402
from tidegate.sim.model import build_model  # noqa: E402

OUT = Path(__file__).parent / "results" / "broadcast_weights.json"


def pipeline(weights: bool):
    x = da.random.random((4000, 1000), chunks=(10, 1000))  # 400 row blocks of 80 kB
    w = da.random.random((1000, 1000), chunks=(1000, 1000))  # 8 MB, one chunk
    y = x @ w if weights else x * 2.0
    return y.sum(axis=1), w


def cluster_rows() -> list:
    import dask
    import distributed
    from distributed import WorkerPlugin

    import tidegate.distributed as td

    class Peak(WorkerPlugin):
        name = "peak-managed"

        def setup(self, worker):
            self.worker, self.peak = worker, 0

        def transition(self, key, start, finish, **kwargs):
            self.peak = max(self.peak, self.worker.state.nbytes)

    def info(dask_worker, name):
        log = dask_worker.transfer_incoming_log
        moves = sum(1 for t in log for k in t["keys"] if name in str(k))
        return moves, sum(t["total"] for t in log), dask_worker.plugins["peak-managed"].peak

    off = {f"distributed.worker.memory.{k}": False for k in ("target", "spill", "pause")}
    rows = []
    for weights in (False, True):
        for policy in ("queue", "tidegate"):
            kw = dict(n_workers=4, threads_per_worker=2, processes=False, dashboard_address=":0")
            if policy == "tidegate":
                kw["scheduler_kwargs"] = {"plugins": [td.Plugin()]}
            with dask.config.set(off), distributed.LocalCluster(**kw) as c, \
                    distributed.Client(c) as client:  # fmt: skip
                client.register_plugin(Peak())
                z, w = pipeline(weights)
                z.compute()
                per = list(client.run(info, name=w.name).values())
            rows.append({
                "pipeline": "x @ w" if weights else "x * 2 (no weights)", "policy": policy,
                "body": "LocalCluster 4x2", "weight_moves_per_worker": [p[0] for p in per],
                "bytes_received_per_worker": [p[1] for p in per],
                "peak_managed_max": max(p[2] for p in per),
            })  # fmt: skip
    return rows


RUNS = (  # (label, policy, broadcast waves)
    ("queue", "queue", False),
    ("tidegate, no waves", "tidegate", False),
    ("tidegate, waves", "tidegate", True),
)


def twin_rows(workers: int) -> list:
    import dask

    rows = []
    for weights in (False, True):
        z, w = pipeline(weights)
        model = build_model(z, None, durations=0.01)
        for label, policy, waves in RUNS if weights else RUNS[:2]:
            with dask.config.set({"tidegate.distributed.broadcast": waves}):
                r = tidegate.simulate(model, workers=workers, threads_per_worker=2,
                                      policy=policy, bandwidth="1GB/s")  # fmt: skip
            moves = [t for t in r.trace.transfers if w.name in t.key]
            made = max((t.stop for t in r.trace.tasks if w.name in t.key), default=0.0)
            waits = [t.stop - made for t in moves]  # each receiver gets one copy
            per = collections.Counter(t.dest for t in moves)
            rows.append({
                "pipeline": "x @ w" if weights else "x * 2 (no weights)",
                "policy": label if weights else policy,
                "workers": workers,
                "weight_moves": len(moves),
                "max_moves_per_worker": max(per.values(), default=0),
                "senders": len({t.source for t in moves}),
                "weight_bytes": sum(t.nbytes for t in moves),
                "bytes_transferred": r.bytes_transferred,
                "weight_wait_s_sum": sum(waits),
                "weight_wait_s_max": max(waits, default=0.0),
                "peak_memory_max": max(r.peak_memory_per_worker),
                "makespan_s": r.makespan,
            })  # fmt: skip
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", type=int, nargs="+", default=[20, 100])
    ap.add_argument("--cluster", action="store_true")
    args = ap.parse_args()
    rows = []
    for n in args.workers:
        rows += twin_rows(n)
    table = Table(title="broadcast weights, twin, x 2 threads, 1 GB/s in and out per worker")
    for col in ("workers", "pipeline", "policy", "moves", "max/worker", "senders",
                "transferred MB", "wait sum s", "wait max s", "peak MB", "makespan s"):
        table.add_column(col)
    for r in rows:
        table.add_row(
            str(r["workers"]), r["pipeline"], r["policy"], str(r["weight_moves"]),
            str(r["max_moves_per_worker"]), str(r["senders"]),
            f"{r['bytes_transferred'] / 1e6:.1f}", f"{r['weight_wait_s_sum']:.3f}",
            f"{r['weight_wait_s_max']:.3f}", f"{r['peak_memory_max'] / 1e6:.2f}",
            f"{r['makespan_s']:.3f}",
        )  # fmt: skip
    Console(width=160).print(table)
    if args.cluster:
        crows = cluster_rows()
        ctable = Table(title="broadcast weights, LocalCluster, 4 workers x 2 threads")
        for col in ("pipeline", "policy", "weight moves/worker", "received MB/worker",
                    "peak managed MB"):
            ctable.add_column(col)
        for r in crows:
            ctable.add_row(
                r["pipeline"], r["policy"], str(r["weight_moves_per_worker"]),
                str([round(b / 1e6, 2) for b in r["bytes_received_per_worker"]]),
                f"{r['peak_managed_max'] / 1e6:.2f}",
            )  # fmt: skip
        Console(width=160).print(ctable)
        rows += crows
    OUT.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
