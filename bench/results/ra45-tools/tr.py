# ra45: simulate trace of the twin rechunk-add, queue and tidegate (python tr.py STEPS WORKERS [-g graph] [-q])
import sys
from tidegate.sim import simulate
from tidegate.sim.workloads import build
from tidegate.sim.model import build_model
steps = int(sys.argv[1]) if len(sys.argv) > 1 else 4
workers = int(sys.argv[2]) if len(sys.argv) > 2 else 4
w = build("rechunk-add", steps, 190e6, store=True)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations, finalize=True)
if "-g" in sys.argv:
    for k, node in model.dsk.items():
        deps = getattr(node, "dependencies", None)
        print(k, "<-", sorted(map(str, deps)) if deps else deps, "size", model.sizes.get(k) if isinstance(model.sizes, dict) else None)
pols = ["queue", "tidegate"] if "-q" in sys.argv else ["tidegate"]
res = simulate(model, workers=workers, threads_per_worker=4, seed=0, policy=pols, record_memory=False, processes=1)
for pol, r in zip(pols, res):
    print("==", pol, "makespan", r.makespan, [round(x/1e6) for x in r.peak_memory_per_worker])
    for t in sorted(r.trace.tasks, key=lambda t: t.start):
        print("  %-70s %s %.3f %.3f" % (str(t.key)[:70], t.worker[-6:] if isinstance(t.worker,str) else t.worker, t.start, t.stop))
