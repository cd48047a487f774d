from tidegate.sim import simulate
from tidegate.sim.workloads import build
from tidegate.sim.model import build_model
from tidegate import policy
for label, store, fin in [("store model()", True, None), ("nostore model()", False, None), ("review: finalize", True, True), ("no finalize", True, False)]:
    w = build("rechunk-add", 4, 190e6, store=store)
    m = w.model() if fin is None else build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations, finalize=fin)
    for us in (0,):
        q, t = simulate(m, workers=4, threads_per_worker=4, seed=0, policy=["queue", "tidegate"], record_memory=False, processes=1)
        print(label, "tasks", len(m.dsk), "peak t/q %.2f" % (max(t.peak_memory_per_worker)/max(q.peak_memory_per_worker)),
              [round(x/1e6) for x in t.peak_memory_per_worker], [round(x/1e6) for x in q.peak_memory_per_worker],
              "time %.2f" % (t.makespan/q.makespan), "moved t %.0f q %.0f MB" % (t.bytes_transferred/1e6, q.bytes_transferred/1e6), flush=True)
