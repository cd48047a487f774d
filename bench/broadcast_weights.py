"""Widely shared inputs: one weight array used by every row block (``(x @ w).sum(axis=1)``),
in the twin at 20 workers x 2 threads, dask's queuing vs tidegate's plugin, side by side.

Per policy: how often the weights moved to each worker (at most once is the goal), bytes
transferred in all and of the weights, the time weight transfers took (waiting for them)
and when they started (all at once, or spread), peak memory of the busiest worker, and the
makespan (virtual seconds). The same pipeline without weights (``x * 2``: fused into one
task per block) is the baseline for peak memory.

    python bench/broadcast_weights.py [--workers 20]
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


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", type=int, default=20)
    args = ap.parse_args()
    rows = []
    for weights in (False, True):
        z, w = pipeline(weights)
        model = build_model(z, None, durations=0.01)
        for policy in ("queue", "tidegate"):
            r = tidegate.simulate(model, workers=args.workers, threads_per_worker=2, policy=policy)
            moves = [t for t in r.trace.transfers if w.name in t.key]
            per = collections.Counter(t.dest for t in moves)
            rows.append({
                "pipeline": "x @ w" if weights else "x * 2 (no weights)",
                "policy": policy,
                "workers": args.workers,
                "weight_moves": len(moves),
                "max_moves_per_worker": max(per.values(), default=0),
                "weight_bytes_per_receiving_worker": (
                    sum(t.nbytes for t in moves) / len(per) if per else 0
                ),
                "bytes_transferred": r.bytes_transferred,
                "weight_wait_s_total": sum(t.stop - t.start for t in moves),
                "weight_fetch_start_spread_s": (
                    max(t.start for t in moves) - min(t.start for t in moves) if moves else 0
                ),
                "peak_memory_max": max(r.peak_memory_per_worker),
                "makespan_s": r.makespan,
            })  # fmt: skip
    table = Table(title=f"broadcast weights, twin, {args.workers} workers x 2 threads")
    for col in ("pipeline", "policy", "weight moves", "max/worker", "weights/receiver MB",
                "transferred MB", "weight wait s", "fetch spread s", "peak MB", "makespan s"):
        table.add_column(col)
    for r in rows:
        table.add_row(
            r["pipeline"], r["policy"], str(r["weight_moves"]), str(r["max_moves_per_worker"]),
            f"{r['weight_bytes_per_receiving_worker'] / 1e6:.2f}",
            f"{r['bytes_transferred'] / 1e6:.2f}", f"{r['weight_wait_s_total']:.4f}",
            f"{r['weight_fetch_start_spread_s']:.4f}", f"{r['peak_memory_max'] / 1e6:.2f}",
            f"{r['makespan_s']:.3f}",
        )  # fmt: skip
    Console().print(table)
    OUT.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
