"""vort20: what each vorticity task really allocates (tracemalloc: numpy's and Python's
allocations), on dask threaded with ONE thread, per group: the peak above what was
allocated when the task started (its temporaries and output) and what stayed (its output).

    PYTHONPATH=src python bench/results/vort20_needs.py FOLDER [--steps 40]"""
import argparse, json, os, time, tracemalloc
from collections import defaultdict
import dask
import numpy as np
from dask.callbacks import Callback
from tidegate.workloads import build, make_inputs

p = argparse.ArgumentParser()
p.add_argument("folder")
p.add_argument("--steps", type=int, default=40)
a = p.parse_args()
if not os.path.exists(f"{a.folder}/a.zarr"):
    make_inputs(a.folder, a.steps)
(work,) = dask.optimize(build("vorticity", {n: f"{a.folder}/{n}.zarr" for n in "ab"}, a.folder))
dsk = dict(work.__dask_graph__())
deps = {k: set(dask.core.get_dependencies(dsk, k)) for k in dsk}
rec = defaultdict(list)
st = {}


class T(Callback):
    def _pretask(self, key, dsk, state):
        cur, _ = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        st[key] = (cur, time.perf_counter())

    def _posttask(self, key, result, dsk, state, id):
        cur, peak = tracemalloc.get_traced_memory()
        c0, t0 = st.pop(key)
        inb = sum(getattr(state["cache"].get(d), "nbytes", 0) for d in deps.get(key, ()))
        rec[dask.utils.key_split(key[0] if isinstance(key, tuple) else key)].append(
            (peak - c0, cur - c0, inb, time.perf_counter() - t0))


tracemalloc.start()
with T():
    dask.compute(work, scheduler="threads", num_workers=1, optimize_graph=False)
tracemalloc.stop()
for g, rs in sorted(rec.items(), key=lambda kv: -max(r[0] for r in kv[1])):
    pk = [r[0] / 1e6 for r in rs]
    kept = [r[1] / 1e6 for r in rs]
    inb = [r[2] / 1e6 for r in rs]
    print(json.dumps({"group": g, "n": len(rs), "peak_above_start_MB": [round(min(pk), 1), round(float(np.median(pk)), 1), round(max(pk), 1)],
                      "kept_MB": [round(min(kept), 1), round(float(np.median(kept)), 1), round(max(kept), 1)],
                      "inputs_MB(sizeof-ish)": round(float(np.median(inb)), 1),
                      "s": round(sum(r[3] for r in rs), 2)}))
