import sys, re
from tidegate.trace import Trace
tr = Trace.load(sys.argv[1])
names = {}
def short(k):
    def rep(m):
        h = m.group(0)
        if h not in names: names[h] = "ABCDEFGHIJ"[len(names)]
        return names[h]
    k = re.sub(r"-[0-9a-f]{32}", rep, k)
    return k.replace("rechunk-split-rechunk-merge", "fused").replace("rechunk-", "").replace("from-zarr", "read").replace("', ", "").replace("('", "").replace(", 0, 0)", ")")
ev = [(t.start, 0, f"+{t.stop-t.start:.3f} th{t.thread} {short(t.key)}") for t in tr.tasks]
ev += [(s.time, 1, f"       {s.direction} {short(s.key)}") for s in tr.spills]
ev.sort()
a, b = float(sys.argv[2]), float(sys.argv[3])
for t, _, s in ev:
    if a <= t <= b: print(f"{t:7.3f} {s}")
print(names)
