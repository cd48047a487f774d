"""Per cell of a multi.py JSON: runs over 1.05x queuing's time / over queuing's peak by > 1 MB
and summed makespan per variant, and the change against the first variant.
python summary.py x60.json"""
import json
import sys

d = json.load(open(sys.argv[1]))
names = [v.partition(":")[0] for v in d["variants"]]
print(f"{'cell':14s}" + "".join(f"{n:>26s}" for n in names) + "   change")
for c in d["cells"]:
    row, sums = [], []
    for n in names:
        runs = c["runs"]
        to = sum(r[n]["makespan"] > 1.05 * r["queue"]["makespan"] for r in runs)
        po = sum(max(r[n]["peaks"]) - max(r["queue"]["peaks"]) > 1e6 for r in runs)
        s = sum(r[n]["makespan"] for r in runs)
        sums.append(s)
        row.append(f"{to:3d} / {po:2d} {s:8.3f}")
    print(f"{c['shape']:5s} {c['lag']*1e3:4g} ms  " + "".join(f"{x:>26s}" for x in row)
          + f"   {100 * (sums[-1] / sums[0] - 1):+.1f}%")
