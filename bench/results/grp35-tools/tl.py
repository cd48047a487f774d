"""loaders timeline: python tl.py SHAPE STEPS NAMING SEED [--policy tidegate] [--patch F]"""
import argparse, sys, re
ap = argparse.ArgumentParser()
ap.add_argument("shape"); ap.add_argument("steps", type=int); ap.add_argument("naming", type=int); ap.add_argument("seed", type=int)
ap.add_argument("--policy", default="tidegate"); ap.add_argument("--patch", action="append", default=[])
ap.add_argument("--calls", action="store_true")
a = ap.parse_args()
for p in a.patch:
    exec(open(p).read())
from tidegate.sim import fidelity, simulate
from tidegate import policy as P
calls = []
if a.calls:
    orig = P.passes_for_group
    def wrap(*args, **kw):
        r = orig(*args, **kw); calls.append((args, kw, r)); return r
    P.passes_for_group = wrap
    import tidegate.distributed.placement as PL
    if hasattr(PL, "passes_for_group"): PL.passes_for_group = wrap
g = fidelity.unique_loaders(steps=a.steps)
n = a.naming
def ren(k):
    if n == 0: return k
    return f"{k}-n{n}" if isinstance(k, str) else (f"{k[0]}-n{n}",) + k[1:]
def sub(v):
    try:
        if v in g.dsk: return ren(v)
    except TypeError: pass
    if isinstance(v, tuple): return tuple(sub(x) for x in v)
    return v
dsk = {ren(k): sub(v) for k, v in g.dsk.items()}
w, t = map(int, a.shape.split("x"))
r = simulate(dsk, keys=[ren(k) for k in g.keys], sizes={ren(k): v for k, v in g.sizes.items()} if g.sizes else None,
             durations={ren(k): v for k, v in g.durations.items()} if g.durations else None,
             workers=w, threads_per_worker=t, processes=1, seed=a.seed, policy=a.policy, record_memory=True)
tr = r.trace
print(f"{a.policy} makespan {r.makespan:.3f} peaks {[round(p/1e6) for p in r.peak_memory_per_worker]} moved {r.bytes_transferred/1e6:.0f}")
def short(k):
    s = str(k)
    if "load_" in s: return "L" + str(int(s.split("load_")[1][:4]))
    m = re.findall(r"\d+", s); return "C%s.%s" % (m[0], m[1])
for wk in sorted({x.worker for x in tr.tasks}):
    ts = sorted((x for x in tr.tasks if x.worker == wk), key=lambda x: x.start)
    print(f"== {wk[-8:]} loads {sum(1 for x in ts if 'load_' in str(x.key))}")
    for x in ts:
        print(f"   t{x.thread} {x.start:.3f}-{x.stop:.3f} {short(x.key)}")
for x in sorted(tr.transfers, key=lambda x: x.start):
    print(f"  xfer {x.start:.3f}-{x.stop:.3f} {short(x.key)} {x.source[-6:]}->{x.dest[-6:]}")
for c in calls: print("call", c)
