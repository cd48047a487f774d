"""The twin's unique-key loaders reduced pairwise (sim_fingerprints' f-unique:
tidegate.sim.fidelity.unique_loaders, 24 steps) at WxT over key namings x twin seeds:
tidegate / queue makespan and peak per worker, median [min-max] (session 28, wall28).
Naming n > 0 appends "-n<n>" to every key name (dask's set order at the graph's arrival
and the twin's ties follow the names).

    python bench/wall28_unique.py [--shape 4x2] [--namings 5] [--seeds 3] [-v]
        [--patch FILE.py: exec'd before the runs, e.g. to switch a rule off]
"""
import argparse
import statistics
from tidegate.sim import fidelity, simulate
ap = argparse.ArgumentParser()
ap.add_argument("--shape", default="4x2")
ap.add_argument("--namings", type=int, default=4)
ap.add_argument("--seeds", type=int, default=3)
ap.add_argument("--steps", type=int, default=24)
ap.add_argument("--thread-lag", type=float, default=None)
ap.add_argument("-v", action="store_true")
ap.add_argument("--patch", action="append", default=[])
a = ap.parse_args()
w, t = map(int, a.shape.split("x"))
for p in a.patch:
    exec(open(p).read())
def build(n):
    g = fidelity.unique_loaders(steps=a.steps)
    if n == 0:
        return g
    ren = {k: (f"{k}-n{n}" if isinstance(k, str) else (f"{k[0]}-n{n}",) + k[1:]) for k in g.dsk}
    def sub(v):
        try:
            if v in ren:
                return ren[v]
        except TypeError:
            pass
        if isinstance(v, tuple):
            return tuple(sub(x) for x in v)
        try:
            return ren.get(v, v)
        except TypeError:
            return v
    dsk = {ren[k]: sub(v) for k, v in g.dsk.items()}
    from tidegate.sim.fidelity import Graph
    return Graph(g.name, dsk, [ren[k] for k in g.keys])
rows = []
for n in range(a.namings):
    g = build(n)
    for seed in range(a.seeds):
        kw = dict(keys=g.keys, sizes=g.sizes, durations=g.durations, workers=w,
                  threads_per_worker=t, processes=1, seed=seed)
        if a.thread_lag is not None:
            kw["thread_lag"] = a.thread_lag
        q, d = simulate(g.dsk, policy=["queue", "tidegate"], **kw)
        pr = max(d.peak_memory_per_worker) / max(q.peak_memory_per_worker)
        mr = d.makespan / q.makespan
        rows.append((mr, pr))
        if a.v:
            print(f"n{n} s{seed} tg {d.makespan:.3f} q {q.makespan:.3f} x{mr:.3f}  "
                  f"peak {max(d.peak_memory_per_worker)/1e6:.0f}"
                  f"/{max(q.peak_memory_per_worker)/1e6:.0f} "
                  f"moved {d.bytes_transferred/1e6:.0f}/{q.bytes_transferred/1e6:.0f}")
ms = sorted(r[0] for r in rows); ps = sorted(r[1] for r in rows)
print(f"{a.shape} makespan ratio median {statistics.median(ms):.3f} [{ms[0]:.3f}-{ms[-1]:.3f}]"
      f"  peak ratio median {statistics.median(ps):.3f} [{ps[0]:.3f}-{ps[-1]:.3f}]")
