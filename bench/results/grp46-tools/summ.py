import json, statistics, sys
rows = [r for f in sys.argv[2:] for r in json.load(open(f))]
a, b = sys.argv[1].split(":")
for shape in sorted({r["shape"] for r in rows}):
    rs = [r for r in rows if r["shape"] == shape and a in r and b in r]
    for s in (a, b):
        pk = [r[s][0] / r["q"][0] for r in rs]; tm = [r[s][1] / r["q"][1] for r in rs]
        mv = [r[s][2] / r["q"][2] for r in rs]
        wk = rs[pk.index(max(pk))]
        print(f"{shape} {s:28s} n={len(rs)} peak med {statistics.median(pk):.3f} max {max(pk):.2f}"
              f" ({wk['build']} s{wk['seed']}) >1.0 {sum(x > 1 for x in pk)} >1.05 "
              f"{sum(x > 1.05 for x in pk)} | time med {statistics.median(tm):.3f} max "
              f"{max(tm):.3f} >1.05 {sum(x > 1.05 for x in tm)} | moved {statistics.median(mv):.2f}")
    lo = sum(r[b][0] < r[a][0] for r in rs); hi = sum(r[b][0] > r[a][0] for r in rs)
    tl = sum(r[b][1] < r[a][1] for r in rs); th = sum(r[b][1] > r[a][1] for r in rs)
    print(f"   {b} vs {a}: peak lower {lo} higher {hi}; time lower {tl} higher {th}")
