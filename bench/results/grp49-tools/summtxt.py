"""python summtxt.py FILE [SHAPE...]: ab_ref's printed rows summarised per shape and side."""
import sys, re, statistics, collections
rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    if ": " not in line or line.split()[1].startswith("CUT") or "n=" in line: continue
    sh, g, s = line.split()[:3]
    sides = dict((m.group(1), (float(m.group(2)), float(m.group(3))))
                 for m in re.finditer(r"(\S+): ([\d.]+) ([\d.]+)", line))
    rows[sh].append((g, s, sides))
for sh, rs in rows.items():
    base = next(iter(rs[0][2]))
    for side in rs[0][2]:
        pk = [r[2][side][0] for r in rs]; tm = [r[2][side][1] for r in rs]
        w = rs[pk.index(max(pk))]
        extra = ""
        if side != base:
            b = [r[2][base] for r in rs]; n = [r[2][side] for r in rs]
            extra = (f" | vs base peak lower {sum(x[0] < y[0] for x, y in zip(n, b))} higher "
                     f"{sum(x[0] > y[0] for x, y in zip(n, b))}, time lower "
                     f"{sum(x[1] < y[1] for x, y in zip(n, b))} higher {sum(x[1] > y[1] for x, y in zip(n, b))}")
        print(f"{sh} {side:18s} n={len(rs)} peak med {statistics.median(pk):.3f} max {max(pk):.2f} "
              f"({w[0]} {w[1]}) >1.05 {sum(x > 1.05 for x in pk)} | time med {statistics.median(tm):.3f} "
              f"max {max(tm):.3f} >1.05 {sum(x > 1.05 for x in tm)}{extra}")
