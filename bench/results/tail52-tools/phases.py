import sys, collections
from dask.utils import key_split
from tidegate.sim import simulate
from tidegate.sim import workloads as wl
name, steps, shape = sys.argv[1], int(sys.argv[2]), sys.argv[3]
store = int(sys.argv[4]) if len(sys.argv) > 4 else 0
W, T = map(int, shape.split("x"))
model = wl.build(name, steps, 190e6, store=bool(store)).model()
for pol in ("queue", "tidegate"):
    r, = simulate(model, workers=W, threads_per_worker=T, seed=0, policy=[pol], record_memory=True, processes=1, bandwidth=1e9)
    tr = r.trace
    print(pol, "makespan %.2f" % r.makespan, "peaks", [round(p/1e9, 2) for p in r.peak_memory_per_worker], "moved %.1f" % (r.bytes_transferred/1e9))
    ph = collections.defaultdict(list)
    for x in tr.tasks:
        ph[key_split(str(x.key) if not isinstance(x.key, tuple) else x.key[0])].append(x)
    for g, xs in sorted(ph.items(), key=lambda kv: min(x.start for x in kv[1])):
        print("  %-30s n=%4d start %.2f-%.2f end %.2f dur %.3f busy %.1f" % (g[:30], len(xs), min(x.start for x in xs), max(x.start for x in xs), max(x.stop for x in xs), sorted(x.stop-x.start for x in xs)[len(xs)//2], sum(x.stop-x.start for x in xs)))
    per = collections.defaultdict(lambda: collections.Counter())
    busy = collections.Counter()
    for x in tr.tasks:
        g = key_split(x.key[0] if isinstance(x.key, tuple) else str(x.key))
        per[x.worker][g] += 1; busy[x.worker] += x.stop - x.start
    for w in sorted(per):
        print("  ", w[-6:], "busy %.1f" % busy[w], dict(per[w]))
