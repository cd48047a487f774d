# anom45: four loads under one mean (the twin seed anomaly of 4 loads) on 4 x 1, 10 ms, SPLIT_WOKEN 0 / 1: tidegate/queue time and load starts
import sys
from tidegate import policy
from tidegate.sim import simulate
from dask._task_spec import DataNode, Task, TaskRef

def graph(n=""):
    h = f"original-from-zarr{n}"
    dsk = {h: DataNode(h, "a.zarr")}
    durations, sizes = {}, {h: 56}
    agg = (f"mean_agg-aggregate{n}", 0, 0)
    for i in range(4):
        load, chunk, store = ((f"{g}{n}", i, 0, 0) for g in ("from-zarr", "mean_chunk", "store-map"))
        dsk[load] = Task(load, str, TaskRef(h), _data_producer=True)
        dsk[chunk] = Task(chunk, str, TaskRef(load))
        dsk[store] = Task(store, max, TaskRef(load), TaskRef(agg))
        durations.update({load: 0.024, chunk: 0.0138, store: 0.0866})
        sizes.update({load: 32_000_000, chunk: 8_000_000, store: 16})
    dsk[agg] = Task(agg, max, *(TaskRef((f"mean_chunk{n}", i, 0, 0)) for i in range(4)))
    durations[agg], sizes[agg] = 0.0224, 8_000_000
    final = f"finalize{n}"
    dsk[final] = Task(final, max, *(TaskRef((f"store-map{n}", i, 0, 0)) for i in range(4)))
    durations[final] = 0.0102
    return dsk, final, durations, sizes

for sw in (0, 1):
    policy.SPLIT_WOKEN = sw
    for n in ("", "-n1", "-n2"):
      for seed in (0, 1):
        dsk, final, durations, sizes = graph(n)
        q, t = simulate(dsk, keys=[final], workers=4, threads_per_worker=1,
                        policy=["queue", "tidegate"], durations=lambda k: durations.get(k, 0.0),
                        sizes=lambda k: sizes.get(k, 16), thread_lag=0.01, seed=seed,
                        processes=1, record_memory=False)
        starts = sorted(s.start for s in t.trace.tasks if s.group.startswith("from-zarr"))
        print(sw, repr(n), seed, round(t.makespan / q.makespan, 3), [round(x, 4) for x in starts])
