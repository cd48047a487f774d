# build() anomaly (or NAME): queue vs tidegate with policy switches A (base) and B (new):
# python cells.py --name anomaly --steps 6,12 --shapes 2x4 --chunk 190e6 --set FIRST_SHARE=1 --new FIRST_SHARE=2
import argparse, statistics
from tidegate import policy
from tidegate.sim import simulate
from tidegate.sim.workloads import build
ap = argparse.ArgumentParser()
ap.add_argument("--name", default="anomaly")
ap.add_argument("--steps", default="6")
ap.add_argument("--shapes", default="2x4")
ap.add_argument("--chunk", type=float, default=190e6)
ap.add_argument("--seeds", type=int, default=2)
ap.add_argument("--old", action="append", default=[])
ap.add_argument("--new", action="append", default=[])
ap.add_argument("--kw", default="{}")
a = ap.parse_args()
kw = eval(a.kw)
def sets(xs):
    return [(k, eval(v)) for k, v in (x.split("=") for x in xs)]
for steps in map(int, a.steps.split(",")):
    model = build(a.name, steps, a.chunk, store=True).model()
    for shape in a.shapes.split(","):
        w, t = map(int, shape.split("x"))
        rows = {"old": [], "new": []}
        for seed in range(a.seeds):
            q, = simulate(model, workers=w, threads_per_worker=t, seed=seed, policy=["queue"],
                          record_memory=False, processes=1, **kw)
            for side, sw in (("old", sets(a.old)), ("new", sets(a.new))):
                saved = [(k, getattr(policy, k)) for k, _ in sw]
                for k, v in sw:
                    setattr(policy, k, v)
                try:
                    d, = simulate(model, workers=w, threads_per_worker=t, seed=seed,
                                  policy=["tidegate"], record_memory=False, processes=1, **kw)
                finally:
                    for k, v in saved:
                        setattr(policy, k, v)
                rows[side].append((d.makespan / q.makespan, max(d.peak_memory_per_worker)
                                   / max(q.peak_memory_per_worker),
                                   d.bytes_transferred / max(q.bytes_transferred, 1)))
        o, n = rows["old"], rows["new"]
        same = "SAME" if o == n else "moved"
        f = lambda v: "time %.3f [%.3f] peak %.3f [%.3f] bytes %.2f" % (
            statistics.median(r[0] for r in v), max(r[0] for r in v),
            statistics.median(r[1] for r in v), max(r[1] for r in v),
            statistics.median(r[2] for r in v))
        print(f"{a.name} {steps} {shape} {same}: old {f(o)} | new {f(n)}", flush=True)
