"""vort20: the floor of vorticity's wall below its working set, from measured tasks.

    PYTHONPATH=src python bench/results/vort20_floor.py FOLDER [--steps 100] [--limit 170e6]

1. dask threaded on ONE thread, in this process, every task timed (pretask/posttask) and its
   result classified: a new buffer (its bytes) or a view of an input's buffer (no bytes).
2. tidegate at --limit (2 threads), in this process: the governor's footprints per group
   (what a task needs past its output), and the run's wall, tasks at once.
3. Replays the single-thread durations with the graph's dependencies on 2 threads, dask's
   order as priority, results held until their last dependent ends (buffers counted once),
   a task starting only where held + running needs (footprint + new output) stay within the
   usable room (greedy list scheduling: an achievable schedule, an upper bound on the best
   one); when nothing runs and nothing fits, the first ready task starts anyway (counted:
   the real run would spill). Also unconstrained (2 threads) and 1 thread (the sum).
Prints one JSON line per replay."""
import argparse
import heapq
import json
import os
import sys
import time
from collections import defaultdict

import dask
import numpy as np
from dask.callbacks import Callback

import tidegate
from tidegate import measure as M
from tidegate.workloads import build, make_inputs

p = argparse.ArgumentParser()
p.add_argument("folder")
p.add_argument("--steps", type=int, default=100)
p.add_argument("--limit", type=float, default=170e6)
p.add_argument("--usable", default="", help="extra usable rooms to replay (MB, comma-sep)")
p.add_argument("--json", default=None)
a = p.parse_args()
if not os.path.exists(f"{a.folder}/a.zarr"):
    make_inputs(a.folder, a.steps)
inputs = {n: f"{a.folder}/{n}.zarr" for n in "ab"}


def root_of(x):
    while isinstance(x, np.ndarray) and x.base is not None:
        x = x.base
    return x


def group_of(key):
    name = key[0] if isinstance(key, tuple) else key
    return dask.utils.key_split(name)


(work,) = dask.optimize(build("vorticity", inputs, a.folder))
dsk = dict(work.__dask_graph__())
deps = {k: set(dask.core.get_dependencies(dsk, k)) for k in dsk}
prio = dask.order.order(dsk)
rec = {}


class Timer(Callback):
    def _pretask(self, key, dsk, state):
        rec[key] = {"t0": time.perf_counter()}

    def _posttask(self, key, result, dsk, state, id):
        r = rec[key]
        r["d"] = time.perf_counter() - r["t0"]
        root = root_of(result)
        r["view_of"] = None
        if isinstance(result, np.ndarray) and result.base is not None:
            for d in deps[key]:
                v = state["cache"].get(d)
                if v is not None and root_of(v) is root:
                    r["view_of"] = d
                    break
        r["bytes"] = int(root.nbytes) if isinstance(root, np.ndarray) else int(dask.sizeof.sizeof(result))


t0 = time.perf_counter()
with Timer():
    dask.compute(work, scheduler="threads", num_workers=1, optimize_graph=False)
one_wall = time.perf_counter() - t0

# 2. tidegate at the limit: the governor's footprints.
govs = []
init = M.Governor.__init__


def keep(self, *args, **kw):
    init(self, *args, **kw)
    govs.append(self)


M.Governor.__init__ = keep
from tidegate import core as C  # noqa: E402

cores = []
cinit = C.Scheduler.__init__


def keepc(self, *args, **kw):
    cinit(self, *args, **kw)
    cores.append(self)


C.Scheduler.__init__ = keepc
work = build("vorticity", inputs, a.folder)
stats = tidegate.RunStats()
t0 = time.perf_counter()
dask.compute(work, scheduler=tidegate.get, num_workers=2, memory_limit=a.limit, stats=stats)
tg_wall = time.perf_counter() - t0
g = govs[-1]
feet = dict(g.footprint)
typical = {k: g.typical(k) for k in feet}
print(json.dumps({"threaded_1_wall": round(one_wall, 2), "tidegate_wall": round(tg_wall, 2),
                  "limit": a.limit, "usable": g.usable, "peak": stats.peak_memory,
                  "written": stats.spill_file_bytes,
                  "footprints_MB": {str(k): round(v / 1e6, 1) for k, v in feet.items()},
                  "typical_MB": {str(k): round(v / 1e6, 1) for k, v in typical.items()}}), flush=True)
gnames = list(cores[-1].graph.group_names)
print(json.dumps({"footprints_by_name_MB": {gnames[k]: round(v / 1e6, 1) for k, v in typical.items()}}))


USE = {"feet": feet}


def footprint_of(key):
    grp = group_of(key)
    if gnames is not None and grp in gnames:
        i = gnames.index(grp)
        return USE["feet"].get(i, 0.0)
    return 0.0


for k in dsk:  # data, not tasks (the zarr array): no time, no bytes
    rec.setdefault(k, {"d": 0.0, "view_of": None, "bytes": 0})


def replay(threads, usable):
    keys = list(dsk)
    dependents = defaultdict(set)
    for k in keys:
        for d in deps[k]:
            dependents[d].add(k)
    waiting = {k: len(deps[k]) for k in keys}
    left = {k: len(dependents[k]) for k in keys}
    ready = [(prio[k], k) for k in keys if waiting[k] == 0]
    heapq.heapify(ready)
    buf_of = {}
    live = defaultdict(int)  # buffer -> held results referencing it
    size = {}
    held = 0.0
    running = []  # (stop, key)
    now = 0.0
    forced = 0
    at = defaultdict(float)
    peak = 0.0
    run_need = 0.0
    needs = {}

    def need(k):
        r = rec[k]
        return footprint_of(k) + (0 if r["view_of"] else r["bytes"])

    while ready or running:
        started = True
        while started and len(running) < threads and ready:
            started = False
            skipped = []
            while ready:
                pk = heapq.heappop(ready)
                k = pk[1]
                n = need(k)
                if held + run_need + n <= usable or (not running and not skipped and False):
                    needs[k] = n
                    run_need += n
                    heapq.heappush(running, (now + rec[k]["d"], k))
                    started = True
                    break
                skipped.append(pk)
            for s in skipped:
                heapq.heappush(ready, s)
            if not running and ready and not started:
                pk = heapq.heappop(ready)
                k = pk[1]
                forced += 1
                needs[k] = n = need(k)
                run_need += n
                heapq.heappush(running, (now + rec[k]["d"], k))
                started = True
        peak = max(peak, held + run_need)
        stop, k = heapq.heappop(running)
        at[len(running) + 1] += stop - now
        now = stop
        run_need -= needs.pop(k)
        r = rec[k]
        b = buf_of[r["view_of"]] if r["view_of"] else k
        buf_of[k] = b
        if b == k:
            size[k] = r["bytes"]
        if live[b] == 0:
            held += size[b]
        live[b] += 1
        for d in deps[k]:
            left[d] -= 1
            if left[d] == 0:
                bd = buf_of[d]
                live[bd] -= 1
                if live[bd] == 0:
                    held -= size[bd]
        if not dependents[k]:  # an output: released at once
            live[b] -= 1
            if live[b] == 0:
                held -= size[b]
        for c in dependents[k]:
            waiting[c] -= 1
            if waiting[c] == 0:
                heapq.heappush(ready, (prio[c], c))
    return {"threads": threads, "usable_MB": round(usable / 1e6, 1), "wall": round(now, 2),
            "forced": forced, "peak_MB": round(peak / 1e6, 1),
            "at": {n: round(v, 2) for n, v in sorted(at.items())}}


total = sum(r["d"] for r in rec.values())
by_group = defaultdict(float)
for k, r in rec.items():
    by_group[group_of(k)] += r["d"]
out = {"task_s_one_thread": round(total, 2),
       "by_group": {k: round(v, 2) for k, v in sorted(by_group.items(), key=lambda kv: -kv[1])},
       "needs_MB": {}}
for k in rec:
    grp = group_of(k)
    out["needs_MB"][grp] = max(out["needs_MB"].get(grp, 0), round(need_ := footprint_of(k) / 1e6, 1))
print(json.dumps(out), flush=True)
results = [replay(1, float("inf")), replay(2, float("inf"))]
for name, fp in (("max", feet), ("typical", typical)):
    USE["feet"] = fp
    for u in [g.usable] + [float(x) * 1e6 for x in a.usable.split(",") if x]:
        r = replay(2, u)
        r["footprints"] = name
        results.append(r)
for r in results:
    print(json.dumps(r), flush=True)
if a.json:
    with open(a.json, "a") as f:
        f.write(json.dumps({"limit": a.limit, "one_wall": one_wall, "tg_wall": tg_wall,
                            "feet": {str(k): v for k, v in typical.items()}, "replays": results,
                            "summary": out}) + "\n")
