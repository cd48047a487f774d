"""(cpu37b, session 37) CPU seconds (process_time) of the twin's scheduler work (SimCluster.scheduler_work,
what plugin_cpu.py times) with a switch off and on, alternated in one process, min of N
runs each: for a change that moves work between functions (admission.PARK_HELD_QUEUED
moves a reader's park from poke's scan into its waiting -> queued transition), where no
single function's timeit tells. A rough check on a shared machine, not the lead's table.

    PYTHONHASHSEED=0 PYTHONPATH=src python bench/results/cpu37b-tools/switch_time.py \
        MODULE.NAME OLD NEW [WORKLOAD] [WORKERS] [REPEAT]
(PART=plugin in the environment: the plugin's poke and transition hook alone.)
"""
import gc
import os
import importlib
import sys
import time

from tidegate.sim import cluster as sim_cluster
from tidegate.sim import simulate
from tidegate.sim.model import build_model
from tidegate.sim.workloads import build

switch, old, new = sys.argv[1], eval(sys.argv[2]), eval(sys.argv[3])
name = sys.argv[4] if len(sys.argv) > 4 else "anomaly"
workers = int(sys.argv[5]) if len(sys.argv) > 5 else 100
repeat = int(sys.argv[6]) if len(sys.argv) > 6 else 5
mod, attr = switch.rsplit(".", 1)
module = importlib.import_module(mod)
STEPS = {"stack-sum": 1000, "slice-add": 1000, "anomaly": 500, "rechunk-add": 500}
w = build(name, STEPS[name], 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
spent = [0.0]
original = sim_cluster.SimCluster.scheduler_work


depth = [0]


def timed(cluster, fn, *args, **kwargs):
    def run(*a):  # (work nested in work counted once: the outermost's time)
        depth[0] += 1
        t = time.process_time()
        try:
            return fn(*a)
        finally:
            depth[0] -= 1
            if not depth[0]:
                spent[0] += time.process_time() - t

    original(cluster, run, *args, **kwargs)


sim_cluster.SimCluster.scheduler_work = timed
# PART=plugin: only the time inside the plugin's poke and transition hook (outermost calls),
# where PARK_HELD_QUEUED moves its work: narrower than the whole scheduler work.
if os.environ.get("PART") == "plugin":
    from tidegate.distributed.hooks import Plugin

    sim_cluster.SimCluster.scheduler_work = original
    for fname in ("poke", "transition"):
        fn = getattr(Plugin, fname)

        def wrapped(self, *a, _fn=fn, **k):
            depth[0] += 1
            t = time.process_time()
            try:
                return _fn(self, *a, **k)
            finally:
                depth[0] -= 1
                if not depth[0]:
                    spent[0] += time.process_time() - t

        setattr(Plugin, fname, wrapped)
best = {old: [], new: []}
for i in range(repeat):
    for v in ((old, new) if i % 2 == 0 else (new, old)):
        setattr(module, attr, v)
        gc.collect()
        spent[0] = 0.0
        r = simulate(model, workers=workers, threads_per_worker=4, policy="tidegate",
                     bandwidth="1GB/s", record_memory=False)
        best[v].append(spent[0] / len(r.trace.tasks) * 1e6)
for v in (old, new):
    xs = sorted(best[v])
    print(f"{attr}={v}: scheduler work {xs[0]:.2f} us a task (min of {repeat}; median "
          f"{xs[len(xs) // 2]:.2f})")
