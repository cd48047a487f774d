"""grp42: ab_grp.py JSON files pooled: per shape, tidegate / queue peak and time ratios of
old and new: median, max (naming), runs over 1.0 / 1.05, lower / higher / same.

    python summ.py A.json [B.json ...]
"""
import json
import statistics
import sys

rows = [r for f in sys.argv[1:] for r in json.load(open(f))]
for shape in sorted({r["shape"] for r in rows}):
    rs = [r for r in rows if r["shape"] == shape]
    for side in ("old", "new"):
        pk = [r[side][0] / r["q"][0] for r in rs]
        tm = [r[side][1] / r["q"][1] for r in rs]
        mv = [r[side][2] / r["q"][2] for r in rs]
        w = rs[pk.index(max(pk))]
        wt = rs[tm.index(max(tm))]
        print(f"{shape} {side} n={len(rs)} peak median {statistics.median(pk):.3f} max "
              f"{max(pk):.2f} ({w['build']} s{w['seed']}) >1.0 {sum(x > 1 for x in pk)} "
              f">1.05 {sum(x > 1.05 for x in pk)} | time median {statistics.median(tm):.3f} max "
              f"{max(tm):.3f} ({wt['build']} s{wt['seed']}) >1.05 {sum(x > 1.05 for x in tm)}"
              f" | moved median {statistics.median(mv):.2f} | own peak median "
              f"{statistics.median(r[side][0] for r in rs):.0f} MB")
    lo = sum(r["new"][0] < r["old"][0] for r in rs)
    hi = sum(r["new"][0] > r["old"][0] for r in rs)
    tl = sum(r["new"][1] < r["old"][1] for r in rs)
    th = sum(r["new"][1] > r["old"][1] for r in rs)
    print(f"{shape}: peak lower {lo} higher {hi} same {len(rs) - lo - hi}; time lower {tl} "
          f"higher {th}")
