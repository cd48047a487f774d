"""multi.py JSONs: per cell, tidegate's distinct makespans (variant VAR, default the first),
queuing's min / median / max, and the runs over 1.05x queuing's time with their rank among
queuing's makespans (0 = fastest). python overs.py X.json [VAR]"""
import json, statistics, sys
d = json.load(open(sys.argv[1]))
var = sys.argv[2] if len(sys.argv) > 2 else d["variants"][0].partition(":")[0]
for c in d["cells"]:
    runs = c["runs"]
    t = sorted({round(r[var]["makespan"], 4) for r in runs})
    q = sorted(r["queue"]["makespan"] for r in runs)
    over = sorted((r["queue"]["makespan"], r["naming"], r["seed"], r[var]["makespan"])
                  for r in runs if r[var]["makespan"] > 1.05 * r["queue"]["makespan"])
    print(c["shape"], c["lag"], "tidegate's schedules", t, "queue", round(q[0], 4),
          round(statistics.median(q), 4), round(q[-1], 4))
    print("   over (q, naming, seed, tidegate):", [(round(a, 4), n, s, round(b, 4)) for a, n, s, b in over],
          "ranks", [q.index(o[0]) for o in over])
