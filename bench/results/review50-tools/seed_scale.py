"""tests/test_small_cluster_twin._anomaly_stores' shape with 4 x G loads (G partials), on W
workers x 2 threads; counts per task of the plugin's whole-cluster looks."""
import sys, collections
from dask._task_spec import DataNode, Task, TaskRef
from tidegate.books import Books
from tidegate.distributed.hooks import Plugin
from tidegate.sim import simulate

G, W = int(sys.argv[1]), int(sys.argv[2])
counts = collections.Counter()
import os
NOWRAP = os.environ.get('NOWRAP')
def wrap(cls, attr, extra=None):
    if NOWRAP: return
    orig = getattr(cls, attr)
    def f(self, *a, **k):
        counts[attr] += 1
        if extra:
            counts[attr + ":items"] += extra(self, *a, **k)
        return orig(self, *a, **k)
    setattr(cls, attr, f)
orig_heavier = Plugin._heavier
def _hv(self, *a, **k):
    counts["_heavier<" + sys._getframe(1).f_code.co_name + ":" + str(sys._getframe(1).f_lineno)] += 1
    return orig_heavier(self, *a, **k)
if not NOWRAP: Plugin._heavier = _hv
for a in ("_slower", "_held_here", "_by_held", "_faster", "_idle_takes", "_poke"):
    wrap(Plugin, a)
wrap(Plugin, "_split", lambda self, s, sid: len(self._parked))
wrap(Plugin, "_wake", lambda self, k: len(self._waiting_on.get(k, ())))
wrap(Books, "_admits")
h = "original-from-zarr"
dsk = {h: DataNode(h, "a.zarr")}; durations = {}; sizes = {h: 56}
agg = ("mean_agg-aggregate", 0, 0)
n = 4 * G
for i in range(n):
    load, chunk, store = ((g, i, 0, 0) for g in ("from-zarr", "mean_chunk", "store-map"))
    dsk[load] = Task(load, str, TaskRef(h), _data_producer=True)
    dsk[chunk] = Task(chunk, str, TaskRef(load))
    dsk[store] = Task(store, max, TaskRef(load), TaskRef(agg))
    durations.update({load: 0.05 + 0.01 * (i % 3), chunk: 0.0038, store: 0.02})
    sizes.update({load: 32_000_000, chunk: 8_000_000, store: 16})
for j in range(G):
    p = ("mean_combine-partial", j, 0, 0)
    dsk[p] = Task(p, max, *(TaskRef(("mean_chunk", 4 * j + i, 0, 0)) for i in range(4)))
    durations[p], sizes[p] = 0.004, 16_000_000
dsk[agg] = Task(agg, max, *(TaskRef(("mean_combine-partial", j, 0, 0)) for j in range(G)))
durations[agg], sizes[agg] = 0.0124, 8_000_000
final = "finalize"
dsk[final] = Task(final, max, *(TaskRef(("store-map", i, 0, 0)) for i in range(n)))
durations[final] = 0.0002
r = simulate(dsk, keys=[final], workers=W, threads_per_worker=2, policy=os.environ.get("POLICY", "tidegate"),
             durations=lambda k: durations.get(k, 0.0), sizes=lambda k: sizes.get(k, 16),
             thread_lag=0.01, seed=0, record_memory=False)
t = len(dsk)
import hashlib
sig = hashlib.sha1(repr((r.makespan, sorted((str(x.key), str(x.worker), round(x.start, 9)) for x in r.trace.tasks))).encode()).hexdigest()[:12]
print("sched", sig, "G", G, "W", W, "tasks", t, " ".join(f"{k}={v / t:.2f}" for k, v in sorted(counts.items())))
