"""The seed scenario on the twin (dask/distributed#6360): vorticity, 9,000 steps of
190 MB, 20 and 100 workers x 4 threads, eager vs queue vs tidegate.

Numbers chosen (tidegate.sim.model / tidegate.sim.workloads): loads at 200 MB/s per thread
(0.95 s per 190 MB step: object storage, slower than the 1 GB/s network), stores at
100 MB/s (1.9 s: slower than loads), arithmetic at 1 GB/s per chunk touched, 1 ms task
overhead, 1 ms latency, 100 µs of scheduler CPU per message, dask's work stealing on.
No memory limit, spilling or pausing is simulated: peaks are what each policy asks for.

    python bench/sim_seed.py [--workers 20,100] [--steps 9000] [--store]

``--store``: the store form (each step's store returns None and one final task waits for
all of them, as a computed ``da.store`` has it; tidegate.sim.workloads), written to
sim_seed-store.json unless ``--out`` says otherwise.
"""

from __future__ import annotations

import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _here]

import argparse  # noqa: E402
import json  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

from tidegate.sim import model as rates  # noqa: E402
from tidegate.sim import simulate  # noqa: E402
from tidegate.sim.model import build_model  # noqa: E402
from tidegate.sim.workloads import build  # noqa: E402

OUT = Path(__file__).parent / "results" / "sim_seed.json"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", default="20,100")
    ap.add_argument("--steps", type=int, default=9000)
    ap.add_argument("--chunk", type=float, default=190e6)
    ap.add_argument("--out", default=None)
    ap.add_argument("--store", action="store_true", help="the store form (see above)")
    args = ap.parse_args()
    if args.out is None:
        args.out = str(OUT.with_name("sim_seed-store.json") if args.store else OUT)
    w = build("vorticity", args.steps, args.chunk, store=args.store)
    model = w.model() if args.store else build_model(w.graph, w.keys, sizes=w.sizes,
                                                     durations=w.durations)
    out = {
        "steps": args.steps, "chunk": args.chunk, "threads_per_worker": 4, "store": args.store,
        "bandwidth": 1e9, "latency": 1e-3, "scheduler_time": 1e-4,
        "load_rate": rates.LOAD_RATE, "store_rate": rates.STORE_RATE,
        "compute_rate": rates.COMPUTE_RATE, "durations": w.durations, "runs": {},
    }
    for n in map(int, args.workers.split(",")):
        runs = {}
        for policy in ("eager", "queue", "tidegate"):
            t0 = time.perf_counter()
            r = simulate(model, workers=n, threads_per_worker=4, policy=policy, record_memory=False)
            peaks = r.peak_memory_per_worker
            runs[policy] = {
                "peak_max": max(peaks), "peak_mean": sum(peaks) / n, "makespan": r.makespan,
                "bytes_transferred": r.bytes_transferred, "wall_s": time.perf_counter() - t0,
                "peak_memory_per_worker": peaks,
            }
            print(f"{n} workers {policy}: peak max {max(peaks) / 2**30:.1f} GiB, mean "
                  f"{sum(peaks) / n / 2**30:.1f} GiB, makespan {r.makespan:.0f} s, moved "
                  f"{r.bytes_transferred / 2**40:.2f} TiB ({runs[policy]['wall_s']:.0f} s wall)",
                  flush=True)
        out["runs"][str(n)] = runs
        Path(args.out).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
