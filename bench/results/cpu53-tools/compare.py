"""Side by side: per-function own bytecodes a task from allfuncs.py outputs: A.json B.json [N]
(sorted by |B - A|; use A = queue, B = tidegate, or A = base, B = new)."""
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
n = int(sys.argv[3]) if len(sys.argv) > 3 else 40
print(f"totals {a['total']:.1f} -> {b['total']:.1f} ({b['total'] - a['total']:+.1f})")
keys = set(a["rows"]) | set(b["rows"])
d = sorted(keys, key=lambda k: -abs(b["rows"].get(k, [0, 0])[0] - a["rows"].get(k, [0, 0])[0]))
for k in d[:n]:
    x, y = a["rows"].get(k, [0, 0]), b["rows"].get(k, [0, 0])
    print(f"{x[0]:8.1f} {x[1]:6.2f} | {y[0]:8.1f} {y[1]:6.2f} | {y[0] - x[0]:+8.1f}  {k}")
