"""Critical path of the twin's tree-reduced unique-key loaders (wall28_unique's graph):
walk back from the output, at each task the input that arrived last (its end, or its copy's
end if copied) and whether the task then waited for a thread.

    python ucrit.py SHAPE STEPS SEED [--naming N] [--policy tidegate|queue]
"""
import argparse
import sys
from tidegate.sim import fidelity, simulate

ap = argparse.ArgumentParser()
ap.add_argument("shape"); ap.add_argument("steps", type=int); ap.add_argument("seed", type=int)
ap.add_argument("--policy", default="tidegate")
ap.add_argument("--set", action="append", default=[])
a = ap.parse_args()
import ast, tidegate.policy as P
for kv in a.set:
    k, v = kv.split("=")
    setattr(P, k, ast.literal_eval(v))
w, t = map(int, a.shape.split("x"))
g = fidelity.unique_loaders(steps=a.steps)
r = simulate(g.dsk, policy=a.policy, keys=g.keys, sizes=g.sizes, durations=g.durations,
             workers=w, threads_per_worker=t, processes=1, seed=a.seed)
tr = r.trace
ends = {e.key: e for e in tr.tasks}
copies = {}
for x in tr.transfers:
    copies.setdefault((x.key, x.dest), x)
deps = {str(k): [str(d) for d in v[3:]] for k, v in g.dsk.items()}
print(f"{a.policy} makespan {r.makespan:.3f} peak {max(r.peak_memory_per_worker)/1e6:.0f} "
      f"moved {r.bytes_transferred/1e6:.0f}")
key = str(g.keys[0])
while key:
    e = ends[key]
    last, at, how = None, 0.0, ""
    for d in deps.get(key, []):
        de = ends[d]
        c = copies.get((d, e.worker))
        arr = c.stop if c and de.worker != e.worker else de.stop
        if de.stop >= (ends[last].stop if last else -1):
            last, at = d, arr
            how = f"copy {de.worker[-4:]}->{e.worker[-4:]} {c.start:.3f}-{c.stop:.3f}" if (
                c and de.worker != e.worker) else "local"
    wait = e.start - at if last else e.start  # after the last input (by its end) arrived
    print(f"{key:28s} {e.worker[-4:]} t{e.thread} {e.start:.3f}-{e.stop:.3f}  "
          f"inputs ready {at:.3f} ({how}) wait {wait*1e3:.1f} ms")
    key = last
# per-worker load ends
lw = {}
for e in tr.tasks:
    if e.key.startswith("load"):
        lw.setdefault(e.worker[-4:], []).append(round(e.stop, 3))
for k in sorted(lw):
    print(k, len(lw[k]), "loads, last end", max(lw[k]))
