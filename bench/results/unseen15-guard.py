"""UNSEEN_BYTES A/B (unseen15, issue 10): the cells where local._threads_that_fit's guard
decides (limit below 137.5 MB, usable limit >= 5 chunks), each run in a fresh process on
two src folders, interleaved: peak RSS above the compute's start / limit, tasks at once
(task seconds over the span of the trace), wall, spilled bytes. Writes JSON.

    nice -n 5 python bench/results/unseen15-guard.py --a /tmp/base/src --b src --reps 3
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

CHILD = r"""
import json, sys, time
import dask, dask.array as da, numpy as np, tidegate
from tidegate.measure import RSSSampler
from tidegate.trace import collecting
case, limit = sys.argv[1], float(sys.argv[2])
rng = da.random.default_rng(0)
if case == "matmul":  # test_budget's: 8 MB chunks
    a = rng.random((4000, 4000), chunks=(1000, 1000))
    b = rng.random((4000, 4000), chunks=(1000, 1000))
    y = (a.T @ b)[::50, ::50]
elif case == "anomaly8":  # 8 MB chunks
    x = rng.random((16000, 4000), chunks=(250, 4000))
    y = (x - x.mean(axis=0)).std(axis=0)
elif case == "reduction":  # test_rss_limit's: 10 MB chunks
    x = rng.random((12000, 5000), chunks=(250, 5000))
    y = (x * x[::-1]).sum(axis=0)
with collecting() as traces, RSSSampler(0.002) as rss:
    stats = tidegate.RunStats()
    t0 = time.perf_counter()
    y.compute(scheduler="tidegate", num_workers=2, memory_limit=limit, stats=stats)
    wall = time.perf_counter() - t0
tasks = traces[0].tasks
span = max(t.stop for t in tasks) - min(t.start for t in tasks)
print(json.dumps({"peak": rss.peak_above_baseline, "wall": wall,
                  "at_once": sum(t.stop - t.start for t in tasks) / span,
                  "fewest": stats.fewest_threads, "spilled": stats.bytes_spilled}))
"""

CELLS = [("matmul", 60e6), ("matmul", 100e6), ("anomaly8", 60e6), ("anomaly8", 100e6),
         ("anomaly8", 130e6), ("reduction", 60e6), ("reduction", 100e6)]


def one(src, case, limit):
    with tempfile.TemporaryDirectory(prefix="unseen15-") as d:
        env = {**os.environ, "PYTHONPATH": os.path.abspath(src),
               "DASK_TIDEGATE__SPILL_DIRECTORY": d}
        p = subprocess.run([sys.executable, "-c", CHILD, case, str(limit)], env=env,
                           capture_output=True, text=True, timeout=600)
        if p.returncode:
            raise RuntimeError(p.stderr[-2000:])
        return json.loads(p.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--a", required=True, help="src folder (base)")
    ap.add_argument("--b", required=True, help="src folder (change)")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--json", default="bench/results/unseen15-guard.json")
    a = ap.parse_args()
    rows = []
    for rep in range(a.reps):
        for case, limit in CELLS:
            order = [("a", a.a), ("b", a.b)] if rep % 2 == 0 else [("b", a.b), ("a", a.a)]
            for name, src in order:
                r = one(src, case, limit)
                r.update(code=name, case=case, limit=limit, rep=rep, load=os.getloadavg()[0])
                rows.append(r)
                print(f"{case:10s} {limit/1e6:4.0f} MB {name} peak/limit {r['peak']/limit:.3f} "
                      f"at once {r['at_once']:.2f} fewest {r['fewest']} wall {r['wall']:.2f} "
                      f"spilled {r['spilled']/1e6:.0f} MB load {r['load']:.1f}", flush=True)
    print("\nmedians (min-max) per cell: a | b")
    for case, limit in CELLS:
        out = []
        for name in "ab":
            rs = [r for r in rows if r["case"] == case and r["limit"] == limit and r["code"] == name]
            pk = [r["peak"] / limit for r in rs]
            ao = [r["at_once"] for r in rs]
            wl = [r["wall"] for r in rs]
            out.append(f"peak {statistics.median(pk):.2f} ({min(pk):.2f}-{max(pk):.2f}) at once "
                       f"{statistics.median(ao):.2f} ({min(ao):.2f}-{max(ao):.2f}) wall "
                       f"{statistics.median(wl):.2f}")
        print(f"{case:10s} {limit/1e6:4.0f} MB  " + " | ".join(out))
    with open(a.json, "w") as f:
        json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
