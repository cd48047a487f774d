"""TAIL_THREAD_FREE beyond tail52's cells: a delayed(sum)-like fan-in of N loads (the rule's
bit-1 branch: joins_started_fan_in), queue vs tidegate with the rule 0 / 1, and the scan
_tail_listed makes per call (items drawn from the free workers it filters).

  PYTHONPATH=src python probe_tail.py --n 2000 --dur 0.02 --size 1e6 --shapes 2x2,100x4 \
      --latency 0.001,0.02 [--kw "dict(memory_limit=1e9)"] [--name weighted --steps 200]
"""
import argparse
import statistics

from tidegate import policy
from tidegate.distributed import placement
from tidegate.sim import simulate

ap = argparse.ArgumentParser()
ap.add_argument("--n", type=int, default=2000)
ap.add_argument("--dur", type=float, default=0.02)
ap.add_argument("--size", type=float, default=1e6)
ap.add_argument("--shapes", default="2x2")
ap.add_argument("--latency", default="0.001")
ap.add_argument("--seeds", type=int, default=1)
ap.add_argument("--name", default="")
ap.add_argument("--steps", type=int, default=200)
ap.add_argument("--kw", default="{}")
a = ap.parse_args()
kw = eval(a.kw)

stats = {"calls": 0, "tail": 0, "drawn": 0, "max": 0}
orig = placement.Placement._tail_listed


def counted(self, listed):
    stats["calls"] += 1
    out = orig(self, listed)
    if out is listed:
        return out
    stats["tail"] += 1

    def gen(inner=listed, workers=self.books.workers):
        n = 0
        try:
            for x in inner:
                n += 1
                if x in workers and workers[x].processing < workers[x].threads:
                    yield x
        finally:
            stats["drawn"] += n
            stats["max"] = max(stats["max"], n)
    return gen()


placement.Placement._tail_listed = counted


def model_of():
    if a.name:
        from tidegate.sim.workloads import build
        return dict(x=build(a.name, a.steps, 190e6, store=True).model())
    g = {("load", i): (lambda: None,) for i in range(a.n)}
    g["total"] = (sum, [("load", i) for i in range(a.n)])
    dur = {("load", i): a.dur for i in range(a.n)}
    dur["total"] = 0.01
    size = {("load", i): a.size for i in range(a.n)}
    size["total"] = 8
    return dict(x=g, keys=["total"], durations=lambda k: dur[k], sizes=lambda k: size[k])


m = model_of()
for shape in a.shapes.split(","):
    w, t = map(int, shape.split("x"))
    for lat in map(float, a.latency.split(",")):
        rows = []
        for seed in range(a.seeds):
            q, = simulate(**m, workers=w, threads_per_worker=t, seed=seed, latency=lat,
                          policy=["queue"], record_memory=False, processes=1, **kw)
            r = []
            for v in (0, 1):
                policy.TAIL_THREAD_FREE = v
                for k in stats:
                    stats[k] = 0
                d, = simulate(**m, workers=w, threads_per_worker=t, seed=seed, latency=lat,
                              policy=["tidegate"], record_memory=False, processes=1, **kw)
                r.append((d.makespan / q.makespan, max(d.peak_memory_per_worker)
                          / max(q.peak_memory_per_worker), dict(stats)))
            policy.TAIL_THREAD_FREE = 1
            rows.append(r)
            print(f"{a.name or 'fanin'} {shape} lat {lat} s{seed}: queue {q.makespan:.3f}s | "
                  f"off {r[0][0]:.3f}/{r[0][1]:.3f} on {r[1][0]:.3f}/{r[1][1]:.3f} "
                  f"scan on {r[1][2]}", flush=True)
