"""Queue runs of the twin stencil in one process over namings x seeds until one is faster
than MAKESPAN with a peak at most PEAK_MB; its timeline to OUT.json in trace_twin's format
(tasks, transfers; no holdings). python fastq.py SHAPE LAG MAKESPAN PEAK_MB OUT.json"""
import json
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(here)))
import ab_twin  # noqa: E402
S = ab_twin.S
shape, lag, span, peak, out = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), \
    float(sys.argv[4]) * 1e6, sys.argv[5]
name, model, graphs = next(S.models(["stencil"], os.path.join(
    os.path.dirname(os.path.dirname(here)), "results", "wall24-measured.json"), 40))
for n, g in enumerate(graphs):
    for seed in range(6):
        r = S.twin(model, g, "queue", shape, lag, seed, 200e6, record_memory=True)
        if r.makespan < span and max(r.peak_memory_per_worker) <= peak:
            tr = r.trace
            json.dump({"makespan": r.makespan, "peaks": r.peak_memory_per_worker,
                       "moved": r.bytes_transferred, "workers": {}, "naming": n, "seed": seed,
                       "tasks": [[x.key, x.worker, x.thread, x.start, x.stop, x.nbytes]
                                 for x in tr.tasks],
                       "transfers": [[x.key, x.source, x.dest, x.start, x.stop, x.nbytes]
                                     for x in tr.transfers]}, open(out, "w"))
            print(n, seed, r.makespan, r.peak_memory_per_worker)
            sys.exit()
print("none")
