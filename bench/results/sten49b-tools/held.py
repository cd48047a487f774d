"""sten49b: held 1 MB+ results over time of a trace_twin --json run (one worker or each),
from the graph's dependents: a result is held from its task's end to its last dependent's
end (a requested output: to the end). Prints the count and MB at each change above --from
MB, and at the peak which keys are held, when each was made, and what still needs it.
python held.py TRACE.json NAMING [--from 120] [--at T] [--worker w6:1]
(copies a worker reads are not counted: the stencil moves edges only, under 1 MB)"""
import argparse
import ast
import json
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(here)))
import trace_twin  # noqa: E402  (first: ab_twin takes bench/ off sys.path)
import ab_twin  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("trace")
ap.add_argument("naming", type=int)
ap.add_argument("--only", default="stencil")
ap.add_argument("--from", dest="floor", type=float, default=120)
ap.add_argument("--at", type=float)
ap.add_argument("--worker", help="only results made on workers whose address ends so")
a = ap.parse_args()
d = json.load(open(a.trace))
_, model, graphs = next(ab_twin.S.models([a.only], os.path.join(
    os.path.dirname(here), "wall24-measured.json"), a.naming + 1))
g = graphs[a.naming]
dsk = g[0] if g else model.dsk
deps = {}
for k, v in dsk.items():
    for dep in v.dependencies:
        deps.setdefault(str(dep), []).append(str(k))
stop = {x[0]: x[4] for x in d["tasks"]}
start = {x[0]: x[3] for x in d["tasks"]}
size = {x[0]: x[5] for x in d["tasks"]}
if a.worker:
    size = {x[0]: x[5] for x in d["tasks"] if x[1].endswith(a.worker)}
end = max(stop.values())
ev = []
life = {}
for k, b in size.items():
    if b < 1e6:
        continue
    rel = max((stop[c] for c in deps.get(k, ())), default=end)
    life[k] = (stop[k], rel)
    ev += [(stop[k], 1, k), (rel, -1, k)]
ev.sort(key=lambda e: (e[0], e[1]))  # (a release at the same instant first)
held = set()
best = (0, 0)
sh = lambda k: trace_twin.short(k, a.naming)  # noqa: E731
for t, s, k in ev:
    (held.add if s > 0 else held.discard)(k)
    mb = sum(size[x] for x in held) / 1e6
    if mb > best[0]:
        best = (mb, t)
    if mb >= a.floor:
        print(f"{t*1e3:7.1f} {'+' if s > 0 else '-'}{sh(k):22s} {len(held):3d} {mb:6.1f}")
at = a.at if a.at is not None else best[1]
print(f"peak {best[0]:.1f} MB at {best[1]*1e3:.1f} ms; held at {at*1e3:.1f}:")
for k, (t0, t1) in sorted(life.items(), key=lambda x: x[1]):
    if t0 <= at < t1:
        left = sorted(sh(c) + f"@{start[c]*1e3:.0f}" for c in deps.get(k, ()) if stop[c] > at)
        print(f"   {sh(k):22s} made {start[k]*1e3:6.1f}-{t0*1e3:6.1f} freed {t1*1e3:6.1f} "
              f"waits for {' '.join(left)}")
