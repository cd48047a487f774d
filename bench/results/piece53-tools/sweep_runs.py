"""Runs tie52's sweep of rev51m's tie graph once for one setting and saves every run's
time / peak / moved (queue and tidegate) to a JSON file, for compare_runs.py.
usage: sweep_runs.py OUT.json [NAME=VALUE ...] [variant=V]  (switches set on tidegate.policy;
V a trial form from variants.py;
trial=T one from trials.py)
Sweep: n 8,16,24,32,48 x loads 50/100/200 MB x 2x2,4x2,8x2,2x4,4x4,8x4 x seeds 0,1."""
import json
import os
import sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tidegate.policy as P
from tie_probe import run

out = sys.argv[1]
for a in sys.argv[2:]:
    if a.startswith("variant="):  # a trial form of partner_backlogged (variants.py)
        import variants
        variants.install(a.split("=", 1)[1])
        continue
    if a.startswith("trial="):  # a trial form from trials.py
        import trials
        trials.install(a.split("=", 1)[1])
        continue
    k, v = a.split("=")
    setattr(P, k, type(getattr(P, k))(float(v)) if "." in v else int(v))
rows = {}
for shape in "2x2,4x2,8x2,2x4,4x4,8x4".split(","):
    for n in (8, 16, 24, 32, 48):
        for mb in (50, 100, 200):
            for seed in (0, 1):
                r = {}
                for pol in ("queue", "tidegate"):
                    x = run(n, shape, pol, seed, mb * 1e6)
                    r[pol] = (x.makespan, max(x.peak_memory_per_worker),
                              x.bytes_transferred)
                rows[f"{shape} {n} {mb} {seed}"] = r
json.dump(rows, open(out, "w"))
