"""sten50: every numeric switch of tidegate.policy at a few values, one tidegate run each on the
stencil (naming, seed given), against base: makespan and per-worker peaks. tidegate runs one
schedule whatever the naming on 4 x 4 / 3 x 2 at 10 ms (x60-main.json), so one run says where
the schedule goes; candidates then go to multi.py's 60 runs.
python screen.py --shapes 4x4,3x2 --lag 0.01 [--runs 0:0,3:2] [--only-switch A,B] > OUT"""
import argparse
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(here)))
import ab_twin  # noqa: E402
from tidegate import policy  # noqa: E402

S = ab_twin.S
ap = argparse.ArgumentParser()
ap.add_argument("--shapes", default="4x4,3x2")
ap.add_argument("--lag", type=float, default=0.01)
ap.add_argument("--runs", default="0:0,3:2")
ap.add_argument("--only-switch")
a = ap.parse_args()
runs = [tuple(map(int, r.split(":"))) for r in a.runs.split(",")]
_, model, graphs = next(S.models(["stencil"], os.path.join(
    os.path.dirname(here), "wall24-measured.json"), max(n for n, _ in runs) + 1))
names = [k for k, v in vars(policy).items() if k.isupper() and type(v) in (int, float, bool)]
if a.only_switch:
    names = a.only_switch.split(",")


def values(v):
    if isinstance(v, bool):
        return [not v]
    out = {0, v + 1, v - 1, v * 2} if isinstance(v, int) else {0, v * 0.5, v * 2}
    return sorted(x for x in out if x != v and x >= 0)


def one(shape):
    res = []
    for n, s in runs:
        r = S.twin(model, graphs[n], "tidegate", shape, a.lag, s, 200e6)
        res.append((round(r.makespan, 4), round(max(r.peak_memory_per_worker) / 1e6, 1),
                    tuple(round(p / 1e6) for p in r.peak_memory_per_worker)))
    return res


base = {sh: one(sh) for sh in a.shapes.split(",")}
print("base", base, flush=True)
for k in names:
    v0 = getattr(policy, k)
    for v in values(v0):
        setattr(policy, k, v)
        try:
            for sh in a.shapes.split(","):
                try:
                    r = one(sh)
                except Exception as e:  # a switch value the code does not take
                    print(f"{k}={v} {sh} ERROR {type(e).__name__}", flush=True)
                    continue
                if r != base[sh]:
                    ms = sum(x[0] for x in r) / sum(x[0] for x in base[sh])
                    print(f"{k}={v} {sh} time {ms:.4f} peaks "
                          f"{[x[1] for x in r]} (base {[x[1] for x in base[sh]]}) {r}",
                          flush=True)
        finally:
            setattr(policy, k, v0)
