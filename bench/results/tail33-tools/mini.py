"""mini: python mini.py WORKLOAD SHAPE LAG NAMINGS SEEDS [--outgoing X] [--switch A=v,...]"""
import argparse, sys, statistics
from pathlib import Path
ap = argparse.ArgumentParser()
ap.add_argument("only"); ap.add_argument("shape"); ap.add_argument("lag", type=float)
ap.add_argument("namings"); ap.add_argument("seeds")
ap.add_argument("--outgoing", type=float, default=200e6)
ap.add_argument("--switch", default="")
ap.add_argument("--noqueue", action="store_true")
a = ap.parse_args()
sys.path.insert(0, "/tmp/tail33/bench")
import wall24_twin as W
from tidegate.sim import simulate
import tidegate.policy as P
for kv in filter(None, a.switch.split(",")):
    k, v = kv.split("="); setattr(P, k, type(getattr(P, k))(eval(v)))
def renamed(model, n):
    def new(k):
        return (f"{k[0]}-n{n}",) + k[1:] if isinstance(k, tuple) else f"{k}-n{n}"
    ren = {k: new(k) for k in model.dsk}
    dsk = {ren[k]: v.substitute(ren, key=ren[k]) for k, v in model.dsk.items()}
    return (dsk, [ren[k] for k in model.keys], {ren[k]: v for k, v in model.sizes.items()},
            {ren[k]: v for k, v in model.durations.items()})
def rng(s):
    if "-" in s:
        lo, hi = map(int, s.split("-")); return range(lo, hi + 1)
    return [int(x) for x in s.split(",")]
bd = W._bench(); bd._INPUTS["steps"] = 48
model = W.model_of(bd, a.only, 48, 3, Path("/tmp/tail33/measured.json"))
w, t = map(int, a.shape.split("x"))
for n in rng(a.namings):
    g = renamed(model, n) if n else None
    for seed in rng(a.seeds):
        kw = dict(workers=w, threads_per_worker=t, bandwidth=200e6, outgoing_bandwidth=a.outgoing,
                  latency=0.001, thread_lag=a.lag, seed=seed, record_memory=False, processes=1)
        pol = ["tidegate"] if a.noqueue else ["queue", "tidegate"]
        if g is None:
            rs = simulate(model, policy=pol, **kw)
        else:
            rs = simulate(g[0], keys=g[1], sizes=g[2], durations=g[3], policy=pol, **kw)
        if not isinstance(rs, (list, tuple)):
            rs = [rs]
        out = " | ".join(f"{r.makespan:.4f} {max(r.peak_memory_per_worker)/1e6:.0f}MB "
                         f"{r.bytes_transferred/1e6:.0f}mv" for r in rs)
        ratio = ""
        if len(rs) == 2:
            q, d = rs
            ratio = (f"  x{d.makespan/q.makespan:.3f} p{max(d.peak_memory_per_worker)/max(q.peak_memory_per_worker):.3f}")
        print(f"{a.only} {a.shape} {a.lag} n{n} s{seed}: {out}{ratio}", flush=True)
