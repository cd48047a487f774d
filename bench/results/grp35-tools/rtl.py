"""rolling timeline: python rtl.py gN SEED SHAPE [--policy tidegate] [--patch F]"""
import argparse, re, cloudpickle, collections
ap = argparse.ArgumentParser()
ap.add_argument("g"); ap.add_argument("seed", type=int); ap.add_argument("shape")
ap.add_argument("--policy", default="tidegate"); ap.add_argument("--patch", action="append", default=[])
a = ap.parse_args()
for p in a.patch: exec(open(p).read())
from tidegate.sim import simulate
from dask.utils import key_split
dsk, out, took, size = cloudpickle.load(open(f"/tmp/grp35/roll/{a.g}.pkl", "rb"))
w, t = map(int, a.shape.split("x"))
r = simulate(dsk, keys=out, workers=w, threads_per_worker=t, policy=a.policy, sizes=lambda k: size.get(k, 0),
             durations=lambda k: took.get(k, 1e-3), seed=a.seed, bandwidth=1e9, record_memory=True)
tr = r.trace
print(f"{a.policy} makespan {r.makespan:.3f} peaks {[round(p/1e6) for p in r.peak_memory_per_worker]}")
def short(k):
    s = str(k); m = re.findall(r", (\d+)", s)
    return key_split(k)[:18] + "(" + ",".join(m) + ")"
slow = sorted(took.items(), key=lambda kv: -kv[1])[:5]
print("slowest", [(short(k), round(v, 3)) for k, v in slow])
for wk in sorted({x.worker for x in tr.tasks}):
    ts = sorted((x for x in tr.tasks if x.worker == wk), key=lambda x: x.start)
    c = collections.Counter(key_split(x.key) for x in ts)
    busy = collections.defaultdict(list)
    for x in ts: busy[x.thread].append((x.start, x.stop))
    gaps = []
    for th, iv in busy.items():
        iv.sort(); e = 0
        for s0, s1 in iv:
            if s0 - e > 0.08: gaps.append((th, round(e, 3), round(s0, 3)))
            e = max(e, s1)
    print(f"== {wk[-6:]} loads {c['open_dataset-u']} gaps>80ms {gaps}")
    for x in ts:
        if 'open_dataset' in str(x.key) or x.stop - x.start > 0.15:
            print(f"   t{x.thread} {x.start:.3f}-{x.stop:.3f} {short(x.key)}")
