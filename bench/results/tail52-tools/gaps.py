import sys, collections
from dask.utils import key_split
from tidegate.sim import simulate
from tidegate.sim import workloads as wl
name, steps, shape, until = sys.argv[1], int(sys.argv[2]), sys.argv[3], float(sys.argv[4])
W, T = map(int, shape.split("x"))
model = wl.build(name, steps, 190e6, store=False).model()
for pol in ("queue", "tidegate"):
    r, = simulate(model, workers=W, threads_per_worker=T, seed=0, policy=[pol], record_memory=False, processes=1, bandwidth=1e9)
    ev = []
    for x in r.trace.tasks:
        if x.start < until and x.stop - x.start > 0.01:
            ev.append((x.start, 1, x.worker)); ev.append((x.stop, -1, x.worker))
    ev.sort()
    run = collections.Counter(); last = collections.defaultdict(float); idle = collections.Counter()
    hist = collections.Counter()
    for t, d, w in ev:
        if t > until: break
        idle[w] += (T - run[w]) * (t - last[w]); last[w] = t; run[w] += d
    print(pol, {w[-4:]: round(v, 1) for w, v in sorted(idle.items())}, "total idle thread-s %.1f" % sum(idle.values()))
