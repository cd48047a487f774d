"""Placement decisions with virtual time: [W=4] [SW=..] PYTHONPATH=SRC python dec.py MODE FACTOR [_by_held,_idle_takes,...]"""
import sys, os, re, ast
from tidegate import policy
for kv in filter(None, os.environ.get("SW", "").split(",")):
    k, v = kv.split("="); setattr(policy, k, float(v) if "." in v else int(v))
sys.path.insert(0, "/tmp/slow48")
sys.path.insert(0, "/work/wt/slow48/bench")
import trace_slow as TS
from tidegate.sim import clock as C
from tidegate.distributed import placement as P
CLK = []
init = C.Clock.__init__
def cinit(self, *a, **k):
    init(self, *a, **k); CLK.append(self)
C.Clock.__init__ = cinit
def short(k):
    if isinstance(k, str) and k.startswith("("):
        try: k = ast.literal_eval(k)
        except Exception: pass
    if isinstance(k, tuple):
        n = re.sub(r"-[0-9a-f]{8,}", "", k[0]).replace("mean_combine-partial", "part").replace("mean_chunk", "cm").replace("mean_agg-aggregate", "MEAN").replace("store-map", "st").replace("open-u", "L")
        return f"{n}{k[1]}"
    return str(k)[:12]
def w(x):
    if x is None: return None
    if hasattr(x, "address"): x = x.address
    if isinstance(x, str): return x[-4:]
    if isinstance(x, tuple): return tuple(w(e) if isinstance(e, (str,)) or hasattr(e, "address") else (e if not isinstance(e, dict) else {w(k): v for k, v in e.items()}) for e in x)
    return x
def wrap(name, show=lambda a, r: True):
    f = getattr(P.Placement, name)
    def g(self, ts, *a, **k):
        r = f(self, ts, *a, **k)
        extra = ""
        if name == "_by_held":
            extra = f" paces={ {w(x): tuple(round(v,3) for v in p) for x, p in self._pace.get(ts.group.name, {}).items()} }"
        if show(a, r):
            print(f"{CLK[-1].now:.3f} {name} {short(ts.key)} args={[w(x) if not isinstance(x, dict) else {w(k): v for k, v in x.items()} for x in a[:2]]} -> {w(r)}{extra}")
        return r
    setattr(P.Placement, name, g)
for n in sys.argv[3].split(",") if len(sys.argv) > 3 else ["_by_held", "_decide_worker_non_rootish", "_combine_elsewhere", "_off_lagging", "_paced_keeps"]:
    wrap(n)
mode, f = sys.argv[1], float(sys.argv[2])
r = TS.runs(f, mode, int(os.environ.get("W", 2)), steps=int(os.environ.get("STEPS", 12)))[1]
print("makespan", r.makespan)
