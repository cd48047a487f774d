import json, sys, threading
import dask, numpy as np, tidegate
np.ones(4_000_000).sum()  # glibc's thresholds rise to 32 and 64 MiB
def _load(i):
    return np.full(125_000, float(i))
def held_twice(n):
    def total(*xs):
        return sum(xs)
    def centre(x, t):
        return float((x - t / n).sum())
    loads = [dask.delayed(_load)(i) for i in range(n)]
    t = dask.delayed(total)(*loads)
    return dask.delayed(sum)([dask.delayed(centre)(x, t) for x in loads])
def loose_threads(k):  # threads that leave their heaps with 40 MB free tops, then exit
    def temporaries():
        xs = [np.ones(125_000) for _ in range(40)]
    ts = [threading.Thread(target=temporaries) for _ in range(k)]
    for t in ts: t.start()
    for t in ts: t.join()
held_twice(20).compute(scheduler="tidegate", num_workers=1, memory_limit=32e6)  # warm
out = []
for rep in range(int(sys.argv[1])):
    loose_threads(int(sys.argv[2]))
    s = tidegate.RunStats()
    held_twice(20).compute(scheduler="tidegate", num_workers=1, memory_limit=32e6, stats=s)
    out.append(s.bytes_spilled // 1000000)
print(json.dumps(out))
