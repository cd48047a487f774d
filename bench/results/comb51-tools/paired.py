"""Paired off/on comparison of namings_ab.py's per-run lines (SIZE N {"queue": [peak,
time, moved], "0": [...], "1": [...]}): per size, the runs where the rule lowered /
raised / kept the peak, on/off ratios of peak and time (median [min-max]), the medians of
each side against queue's and the runs over 1.05x queue's time.

    python bench/results/comb51-tools/paired.py FILE...
"""
import collections
import json
import statistics
import sys

runs = collections.defaultdict(dict)
for path in sys.argv[1:]:
    for line in open(path):
        parts = line.split(" ", 2)
        if len(parts) == 3 and parts[2].startswith("{"):
            runs[parts[0]][int(parts[1])] = json.loads(parts[2])


def med(xs):
    return f"{statistics.median(xs):.3f} [{min(xs):.3f}-{max(xs):.3f}]"


print("size      n   peak on<off/=/>  peak on/off            time on/off            "
      "peak/queue off  on      time/queue off  on      over 1.05x time off/on  moved/queue off/on")
for size, by in runs.items():
    rs = list(by.values())
    pk = [r["1"][0] / r["0"][0] for r in rs]
    tm = [r["1"][1] / r["0"][1] for r in rs]
    lo, eq, hi = (sum(x < 1 for x in pk), sum(x == 1 for x in pk), sum(x > 1 for x in pk))
    q = {s: [r[s][0] / r["queue"][0] for r in rs] for s in "01"}
    t = {s: [r[s][1] / r["queue"][1] for r in rs] for s in "01"}
    m = {s: [r[s][2] / r["queue"][2] for r in rs] for s in "01"}
    over = {s: sum(x > 1.05 for x in t[s]) for s in "01"}
    print(f"{size:9s} {len(rs):2d}  {lo:2d}/{eq:2d}/{hi:2d}         {med(pk)}  {med(tm)}  "
          f"{statistics.median(q['0']):.3f} {statistics.median(q['1']):.3f}     "
          f"{statistics.median(t['0']):.3f} {statistics.median(t['1']):.3f}     "
          f"{over['0']}/{over['1']}                   "
          f"{statistics.median(m['0']):.3f} {statistics.median(m['1']):.3f}")
