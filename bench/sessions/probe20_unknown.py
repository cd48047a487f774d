"""Tasks nothing sizes beforehand (issue 10, /tmp/review20/p51): N delayed tasks (one consumer
of all, or each with its own ("sums"), or a bag's partitions) each allocating a 60 MB temporary
and returning 1 MB, 4 threads, at a limit.
Each run a fresh process; the code under test and --against interleaved. Prints peak RSS
above start and wall per run, and medians.

    python bench/sessions/probe20_unknown.py --against /tmp/probe20-base/src --reps 3
"""
import argparse, json, os, statistics, subprocess, sys

RUN = r'''
import json, sys, time
import dask, dask.bag as db, numpy as np, tidegate
from tidegate.measure import RSSSampler
case, limit, n, sleep = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
def work(i):
    tmp = np.ones(7_500_000) * i
    time.sleep(sleep)
    return tmp[:125_000].copy()
if case == "delayed":
    parts = [dask.delayed(work)(i) for i in range(n)]
    y = dask.delayed(lambda *p: float(sum(x.sum() for x in p)))(*parts)
elif case == "sums":  # each task's own consumer: the 40 run 4 at once where they fit
    y = dask.delayed(sum)([dask.delayed(np.sum)(dask.delayed(work)(i)) for i in range(n)])
else:
    y = db.from_sequence(range(n), npartitions=n).map(work).map(np.sum).sum()
with RSSSampler(0.002) as rss:
    t = time.perf_counter()
    s = tidegate.RunStats()
    y.compute(scheduler="tidegate", memory_limit=limit, num_workers=4, stats=s)
    wall = time.perf_counter() - t
print(json.dumps({"peak": rss.peak_above_baseline, "wall": wall}))
'''

CASES = [("delayed", "100MB", 40, 0.05), ("bag", "100MB", 40, 0.05),
         ("sums", "1GB", 40, 0.5), ("bag", "1GB", 40, 0.5), ("sums", "300MB", 40, 0.5)]

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--against")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--json")
    a = ap.parse_args()
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "src")
    codes = [("new", here)] + ([("base", a.against)] if a.against else [])
    out = {}
    for rep in range(a.reps):
        for case in CASES:
            for name, src in (codes if rep % 2 == 0 else codes[::-1]):
                env = {**os.environ, "PYTHONPATH": src}
                p = subprocess.run([sys.executable, "-c", RUN, *map(str, case)], env=env,
                                   capture_output=True, text=True, timeout=600)
                r = json.loads(p.stdout.strip().splitlines()[-1])
                key = f"{case[0]} {case[1]} n={case[2]} task={case[3]}s {name}"
                out.setdefault(key, []).append(r)
                print(f"rep {rep} {key}: peak {r['peak']/1e6:.0f} MB wall {r['wall']:.2f} s",
                      flush=True)
    print("\nmedians (min-max)")
    for key, rs in out.items():
        pk = [r["peak"] / 1e6 for r in rs]; wl = [r["wall"] for r in rs]
        print(f"{key:45s} peak {statistics.median(pk):5.0f} MB ({min(pk):.0f}-{max(pk):.0f})"
              f"  wall {statistics.median(wl):6.2f} s ({min(wl):.2f}-{max(wl):.2f})")
    if a.json:
        json.dump(out, open(a.json, "w"), indent=1)

main()
