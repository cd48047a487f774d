"""A twin fingerprint configuration's run (bench/sim_fingerprints.py's graphs: the default
model, 24 steps, 50 MB chunks) as per-worker task lines, switches set per run.

    python fptrace.py GRAPH WxT [--policy tidegate] [--set NAME=VALUE ...] [-q]
"""
import argparse
import ast
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
bench = os.path.dirname(os.path.dirname(here))
sys.path.insert(0, bench)
import sim_fingerprints as F  # noqa: E402

sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != bench]
ap = argparse.ArgumentParser()
ap.add_argument("graph"); ap.add_argument("shape")
ap.add_argument("--policy", default="tidegate")
ap.add_argument("--set", action="append", default=[])
ap.add_argument("-q", action="store_true")
ap.add_argument("--patch", action="append", default=[])
a = ap.parse_args()
from dask.utils import key_split  # noqa: E402

from tidegate import policy  # noqa: E402
from tidegate.sim import simulate  # noqa: E402

for f in a.patch:
    exec(open(f).read())
for kv in a.set:
    k, v = kv.split("=")
    setattr(policy, k, ast.literal_eval(v))
x, keys, sizes, durations = F.graph(a.graph)
w, t = map(int, a.shape.split("x"))
r = simulate(x, keys=keys, sizes=sizes, durations=durations, workers=w, threads_per_worker=t,
             policy=a.policy)
print(f"{a.graph} {a.shape} {a.policy} {a.set}: makespan {r.makespan:.3f} peaks "
      f"{[round(p / 1e6) for p in r.peak_memory_per_worker]} moved {r.bytes_transferred / 1e6:.0f}")
if not a.q:
    by = {}
    for e in r.trace.tasks:
        by.setdefault(e.worker, []).append(e)
    for wk in sorted(by):
        print("==", wk)
        for e in sorted(by[wk], key=lambda e: e.start):
            print(f"   t{e.thread} {e.start:.4f}-{e.stop:.4f} {key_split(e.key)} "
                  f"{e.key[-14:]} {e.nbytes / 1e6:.0f}")
