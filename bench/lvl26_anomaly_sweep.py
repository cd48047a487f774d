"""The twin anomaly at several sizes (steps) per cluster, queue and tidegate or the
policies given: peak GB per worker, makespan s, moved GB (lvl26-findings.txt).

    PYTHONPATH=src python bench/lvl26_anomaly_sweep.py queue,tidegate
"""
import sys, os, json
from tidegate.sim import simulate
from tidegate.sim.workloads import build
from tidegate.sim.model import build_model
pol = sys.argv[1].split(",")
for workers, stepss in ((100, (800, 1000, 1200)), (20, (200, 240, 1000))):
    for steps in stepss:
        w = build("anomaly", steps, 190e6, store=False)
        model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
        rs = simulate(model, workers=workers, threads_per_worker=4, policy=pol, bandwidth="1e9", record_memory=False)
        out = {p: (max(r.peak_memory_per_worker)/1e9, r.makespan, r.bytes_transferred/1e9) for p, r in zip(pol, rs)}
        print(workers, steps, json.dumps({p: [round(x, 2) for x in v] for p, v in out.items()}), flush=True)
