import sys, statistics
from tidegate.sim import simulate
from tidegate.sim.workloads import build
import tidegate.policy as P
sys.path.insert(0, "/work/wt/one33/tests")
from _namings import NAMINGS, renamed
from tidegate.sim.model import build_model
for store in (False, True):
    w = build("weighted", steps=24, chunk_bytes=50e6, store=store)
    model = w.model() if store else build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
    for shape in ((20, 4), (4, 2)):
        res = {0: [], 1: [], "q": []}
        for salt in NAMINGS[:4]:
            m = renamed(model, salt)
            for seed in (0, 1):
                q = simulate(m, workers=shape[0], threads_per_worker=shape[1], policy="queue", seed=seed, record_memory=False)
                for v in (0, 1):
                    P.TARGETS_NO_ROOT = v
                    r = simulate(m, workers=shape[0], threads_per_worker=shape[1], policy="tidegate", seed=seed, record_memory=False)
                    res[v].append((r.makespan / q.makespan, max(r.peak_memory_per_worker) / max(q.peak_memory_per_worker), r.bytes_transferred))
        for v in (0, 1):
            xs = [x[0] for x in res[v]]; ps = [x[1] for x in res[v]]
            print("store" if store else "plain", shape, "TARGETS", v, "time med", round(statistics.median(xs), 3), "max", round(max(xs), 3), "sum", round(sum(xs)/len(xs), 3), "peak max", round(max(ps), 3), "bytes", sum(x[2] for x in res[v])/1e6, flush=True)
