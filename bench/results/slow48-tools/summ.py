"""Counts over queue's time (1.0, 1.05), peak and bytes, and the median time, of grid lines."""
import sys, statistics
for fs in sys.argv[1:]:
    rows = []
    for f in fs.split(","):
        for l in open(f):
            p = l.split()
            if len(p) >= 11 and p[4] == "time":
                rows.append((float(p[5]), float(p[7]), float(p[9])))
    t = [r[0] for r in rows]
    print(f"{fs[:40]:40} cells {len(rows)}  time>1.0 {sum(x > 1.0005 for x in t)}  >1.05 "
          f"{sum(x > 1.05 for x in t)}  worst {max(t):.3f}  median {statistics.median(t):.3f}  "
          f"peak>1 {sum(r[1] > 1.0005 for r in rows)} (worst {max(r[1] for r in rows):.3f})  "
          f"bytes>1 {sum(r[2] > 1.0005 for r in rows)} (worst {max(r[2] for r in rows):.3f})")
# cells meeting all three targets (time <= 1.05, peak <= 1.0, bytes <= 1.0)
for fs in sys.argv[1:]:
    n = ok = 0
    for f in fs.split(","):
        for l in open(f):
            p = l.split()
            if len(p) >= 11 and p[4] == "time":
                n += 1
                ok += float(p[5]) <= 1.05 and float(p[7]) <= 1.0005 and float(p[9]) <= 1.0005
    print(f"{fs[:40]:40} all three targets met in {ok} of {n}")
