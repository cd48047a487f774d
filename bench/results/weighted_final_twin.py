# bench/results record (tinyroots, issue 9 item 4): usage in tinyroots_weighted_final_twin.json
"""weighted in the twin with its final task (the real workload's: da.store waits for all stores);
the twin's own 'weighted' has none (its stores are outputs)."""
import json, sys, time

from dask._task_spec import Task, TaskRef, List
from tidegate.sim import simulate
from tidegate.sim.workloads import build
steps, workers, threads = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
w = build("weighted", steps, 190e6, store=False)
from tidegate.sim.model import Model, build_model
m = build_model(w.graph, sizes=w.sizes)
stores = list(m.keys)
dsk = dict(m.dsk)
dsk["finalize"] = Task("finalize", len, List(*[TaskRef(k) for k in stores]))
sizes = dict(m.sizes); durations = dict(m.durations)
for k in stores:
    sizes[k] = 16  # a store's None, as the real workload's
sizes["finalize"] = 8; durations["finalize"] = 0.001
model = Model(dsk, ["finalize"], sizes, durations, annotations=m.annotations)
out = {}
for pol in ["queue", "tidegate"]:
    t0 = time.process_time()
    r = simulate(model, workers=workers,
                 threads_per_worker=threads, policy=[pol], bandwidth="1GB/s", latency="1ms",
                 record_memory=False)[0]
    out[pol] = dict(makespan=r.makespan, peak_max=max(r.peak_memory_per_worker),
                    peak_mean=sum(r.peak_memory_per_worker) / workers,
                    transferred=r.bytes_transferred, cpu=time.process_time() - t0)
    print(f"{steps} steps {workers}x{threads} {pol:9s} makespan {r.makespan:8.1f} s  peak/worker max "
          f"{max(r.peak_memory_per_worker)/2**20:8.1f} MiB mean {out[pol]['peak_mean']/2**20:8.1f} MiB  "
          f"transferred {r.bytes_transferred/2**20:9.1f} MiB", flush=True)
if len(sys.argv) > 4:
    json.dump(out, open(sys.argv[4], "w"), indent=1)
