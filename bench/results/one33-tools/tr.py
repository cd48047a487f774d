"""tracer: a wall29_small cell in the twin with per-worker timelines.
python tr.py SHAPE LAG SEED --naming N [--policy tidegate] [--patch F]"""
import argparse, math, os, sys
from pathlib import Path
ap = argparse.ArgumentParser()
ap.add_argument("shape"); ap.add_argument("lag", type=float); ap.add_argument("seed", type=int)
ap.add_argument("--naming", type=int, default=0)
ap.add_argument("--outgoing", type=float, default=200e6)
ap.add_argument("--policy", default="tidegate")
ap.add_argument("--only", default="seed-anomaly")
ap.add_argument("--patch", action="append", default=[])
ap.add_argument("--measured", default="/tmp/one33/measured.json")
a = ap.parse_args()
for p in a.patch:
    exec(open(p).read())
sys.path.insert(0, "/tmp/one33/bench")
import wall24_twin as W
from tidegate.sim import simulate
from dask.utils import key_split
def renamed(model, n):
    def new(k):
        return (f"{k[0]}-n{n}",) + k[1:] if isinstance(k, tuple) else f"{k}-n{n}"
    ren = {k: new(k) for k in model.dsk}
    dsk = {ren[k]: v.substitute(ren, key=ren[k]) for k, v in model.dsk.items()}
    return (dsk, [ren[k] for k in model.keys], {ren[k]: v for k, v in model.sizes.items()},
            {ren[k]: v for k, v in model.durations.items()})
bd = W._bench(); bd._INPUTS["steps"] = 48
model = W.model_of(bd, a.only, 48, 3, Path(a.measured))
w, t = map(int, a.shape.split("x"))
kw = dict(workers=w, threads_per_worker=t, bandwidth=200e6, outgoing_bandwidth=a.outgoing,
          latency=0.001, thread_lag=a.lag, seed=a.seed, record_memory=True, processes=1)
if a.naming:
    g = renamed(model, a.naming)
    r = simulate(g[0], keys=g[1], sizes=g[2], durations=g[3], policy=a.policy, **kw)
else:
    r = simulate(model, policy=a.policy, **kw)
tr = r.trace
print(f"{a.policy} {a.shape} lag {a.lag} seed {a.seed} n{a.naming}: makespan {r.makespan:.4f} "
      f"peaks {[round(p/1e6) for p in r.peak_memory_per_worker]} "
      f"moved {r.bytes_transferred/1e6:.0f}")
def short(k):
    s = str(k)
    g = key_split(k)
    import re
    m = re.findall(r"\d+", s.split(",",1)[1]) if "," in s else []
    return g.replace("-n%d" % a.naming, "")[:14] + "(" + ",".join(m) + ")"
ws = sorted({x.worker for x in tr.tasks})
for wk in ws:
    pk = max((m.held, m.time) for m in tr.memory if m.worker == wk)
    print(f"== {wk} peak {pk[0]/1e6:.0f} MB at {pk[1]:.4f}")
    for x in sorted((x for x in tr.tasks if x.worker == wk), key=lambda x: x.start):
        print(f"   t{x.thread} {x.start:.4f}-{x.stop:.4f} {short(x.key)} {x.nbytes/1e6:.0f}")
for x in sorted(tr.transfers, key=lambda x: x.start):
    print(f"  xfer {x.start:.4f}-{x.stop:.4f} {short(x.key)} {x.source[-6:]}->{x.dest[-6:]} "
          f"{x.nbytes/1e6:.0f}")
