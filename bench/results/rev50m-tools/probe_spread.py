"""rev50m probe: Placement._spread_off's whole-cluster scans (SPREAD_FANOUT) on a
synthetic month/day-slice graph: a month's stack (0.52 MB, from 4 loads of 15.6 MB) read
by its 62 day slices (with a shared 280 B indexer: no own input), each slice's store."""
import os, sys, time
from dask._task_spec import DataNode, Task, TaskRef
from tidegate import policy
from tidegate.distributed.hooks import Plugin
from tidegate.sim import simulate

for kv in os.environ.get("SETS", "").split():
    k, v = kv.split("="); setattr(policy, k, int(v))
M, W, T = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
MB = 2**20
dsk, dur, size = {}, {}, {}
h = "original-open"
dsk[h] = DataNode(h, "a.zarr"); size[h] = 56
idx = ("taker", 0)
dsk[idx] = Task(idx, str, TaskRef(h)); size[idx] = 280; dur[idx] = 0.001
stores = []
for m in range(M):
    loads = []
    for j in range(4):
        k = ("load", m, j)
        dsk[k] = Task(k, str, TaskRef(h), _data_producer=True)
        size[k], dur[k] = 15.6 * MB, 0.05
        loads.append(TaskRef(k))
    st = ("stack", m)
    dsk[st] = Task(st, max, *loads); size[st], dur[st] = 0.52 * MB, 0.01
    for d in range(62):
        sl = ("day", m, d)
        dsk[sl] = Task(sl, max, TaskRef(st), TaskRef(idx)); size[sl], dur[sl] = 0.3 * MB, 0.0001
        so = ("store", m, d)
        dsk[so] = Task(so, str, TaskRef(sl)); size[so], dur[so] = 16, 0.0045
        stores.append(so)
fin = "finalize"
dsk[fin] = Task(fin, max, *(TaskRef(k) for k in stores)); dur[fin] = 0.0002

MOVED = {}
C = dict(calls=0, scans=0, moved=0, secs=0.0)
orig = Plugin._spread_off
def spread_off(self, ts, ws):
    C["calls"] += 1
    t = time.perf_counter()
    n0 = len(self.books.workers)
    out = orig(self, ts, ws)
    C["secs"] += time.perf_counter() - t
    if out is not None:
        C["moved"] += 1
        MOVED[ts.key] = (ws.address, out.address, self.scheduler.tasks[ts.key].state if ts.key in self.scheduler.tasks else None)
    return out
Plugin._spread_off = spread_off
orig_sf = policy.spreads_from
import tidegate.distributed.placement as pl
def sf(*a):
    r = orig_sf(*a)
    if r:
        C["scans"] += 1
    return r
pl.spreads_from = sf
t0 = time.perf_counter()
r = simulate(dsk, keys=[fin], workers=W, threads_per_worker=T, policy="tidegate",
             durations=lambda k: dur.get(k, 0.0), sizes=lambda k: size.get(k, 16), seed=int(os.environ.get("SEED", 0)),
             record_memory=False, **({"scheduler_time": os.environ["ST"]} if os.environ.get("ST") else {}), **eval(os.environ.get("KW", "{}")))
print(f"M={M} {W}x{T} SETS={os.environ.get('SETS','')}: wall {time.perf_counter()-t0:.1f}s makespan {r.makespan:.3f}", C)
if os.environ.get("TRACE"):
    import collections
    x0 = r.trace.tasks[0]
    print([a for a in dir(x0) if not a.startswith("_")])
    by = {}
    for x in r.trace.tasks:
        by[x.key] = x
    print(repr(x0.key), x0.group)
    days = [x for x in r.trace.tasks if "day" in str(x.key)]
    cnt = collections.Counter(x.worker for x in days)
    print("day slices per worker: max", max(cnt.values()), "min", min(cnt.values()), "workers", len(cnt))
    ends = sorted((getattr(x, "stop", getattr(x, "end", 0)), x.key) for x in r.trace.tasks)
    print("last 5 ends", ends[-5:])
    loads = [x for x in r.trace.tasks if "load" in str(x.key)]
    st = {str(x.key): x for x in r.trace.tasks}
    gaps = []
    for x in days:
        k = str(x.key)
        m = k.split(",")[1].strip()
        s0 = st.get(f"('stack', {m})")
        gaps.append(x.start - s0.stop)
    gaps.sort()
    print("day start - its stack end: median %.4f p90 %.4f max %.4f" % (gaps[len(gaps)//2], gaps[int(.9*len(gaps))], gaps[-1]))
    sw = collections.Counter(x.worker for x in stacks0) if False else None
    stk = [x for x in r.trace.tasks if "stack" in str(x.key)]
    cw = collections.Counter(x.worker for x in stk)
    print("stacks per worker: max", max(cw.values()), "workers", len(cw))
    where = {str(x.key).split(",")[1].strip(" )"): x.worker for x in stk}
    away = collections.Counter(where[str(x.key).split(",")[1].strip(" )")] for x in days if x.worker != where[str(x.key).split(",")[1].strip(" )")])
    print("copies a stack holder sends: max", max(away.values()) if away else 0, "senders", len(away))
    print("last load end", max(getattr(x, "stop", getattr(x, "end", 0)) for x in loads))
    stacks = [x for x in r.trace.tasks if "stack" in str(x.key)]
    print("last stack end", max(getattr(x, "stop", getattr(x, "end", 0)) for x in stacks))
