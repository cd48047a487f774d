import sys, collections, re
from tidegate.trace import Trace
for f in sys.argv[1:]:
    tr = Trace.load(f)
    T = tr.tasks
    ev = sorted([(t.start, 1) for t in T] + [(t.stop, -1) for t in T])
    acc = collections.Counter(); cur = 0; last = ev[0][0]
    for tt, d in ev:
        acc[cur] += tt - last; cur += d; last = tt
    wall = ev[-1][0]
    by = collections.defaultdict(float); n = collections.Counter()
    for t in T:
        g = re.sub(r"-[0-9a-f]{32}", "", t.group); by[g] += t.stop - t.start; n[g] += 1
    busy = sum(by.values())
    s = " ".join(f"{g} {n[g]}x {v:.2f}s ({v/busy:.0%})" for g, v in sorted(by.items(), key=lambda kv: -kv[1]) if v/busy > 0.01)
    print(f"{f.split('/')[-1]}: span {wall:.2f}s, running 0/1/2: " + "/".join(f"{acc[k]:.2f}" for k in range(3)) + f"; busy {busy:.2f}s: {s}")
