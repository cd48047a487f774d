"""Per-worker timeline of the tie graph for queue and tidegate (tasks and transfers).
usage: tie_trace.py N SHAPE [MB=load MB] [switch=value ...]"""
import sys
import os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tidegate.policy as P
from tie_probe import run

n = int(sys.argv[1]); shape = sys.argv[2]
MB = 100
for a in sys.argv[3:]:
    k, v = a.split("=")
    if k == "MB":
        MB = float(v)
        continue
    setattr(P, k, int(v))
for pol in ("queue", "tidegate"):
    r = run(n, shape, pol, 0, MB * 1e6)
    print(f"== {pol} time {r.makespan:.3f}")
    ws = sorted({t.worker for t in r.trace.tasks})
    for w in ws:
        ts = sorted((t for t in r.trace.tasks if t.worker == w), key=lambda t: t.start)
        print(w[-6:], " ".join(f"{t.key.strip('()').replace(', ', '').replace(chr(39), '')}"
                              f"@{t.start:.2f}-{t.stop:.2f}/{t.thread}" for t in ts))
    for x in sorted(r.trace.transfers, key=lambda x: x.start):
        print("  xfer", x.key, x.source[-6:], "->", x.dest[-6:], f"{x.start:.2f}-{x.stop:.2f}",
              int(x.nbytes / 1e6))
