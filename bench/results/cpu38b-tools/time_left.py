"""(cpu38b, session 38) Plugin._left_processing's own CPU time, measured directly (not
sampled): thread CPU time around every call of it and of each plugin function it calls, in
one twin run; own = inclusive - its callees'. Checks the sampler's 7-8 us a task of own time
(~60 ns a bytecode, twice the plugin's average).

    PYTHONPATH=src python bench/results/cpu38b-tools/time_left.py [WORKLOAD] [WORKERS]

The clock's own cost (two clock_gettime calls a timed call, ~0.1-0.2 us each here) is
measured on an empty function and taken off each timed call's figure."""
import gc
import sys
import time

from tidegate import books as books_module
from tidegate.distributed import hooks, tasks
from tidegate.sim import simulate
from tidegate.sim.model import build_model
from tidegate.sim.workloads import build

name = sys.argv[1] if len(sys.argv) > 1 else "stack-sum"
nworkers = int(sys.argv[2]) if len(sys.argv) > 2 else 100
STEPS = {"stack-sum": 1000, "slice-add": 1000, "anomaly": 500, "rechunk-add": 500}
clock = time.thread_time_ns
tot: dict = {}
depth = [0]


def timed(label, fn, outer=False):
    """Time fn's calls: _left_processing's (outer), and the others' only inside it."""
    def wrapper(*a, **k):
        if not outer and not depth[0]:
            return fn(*a, **k)
        depth[0] += outer
        t0 = clock()
        try:
            return fn(*a, **k)
        finally:
            t = clock() - t0
            depth[0] -= outer
            e = tot.setdefault(label, [0, 0])
            e[0] += t
            e[1] += 1
    return wrapper


def empty():
    pass


w_empty = timed("empty", empty, outer=True)
for _ in range(200000):
    w_empty()
overhead = tot.pop("empty")
per_call = overhead[0] / overhead[1]

P, B = hooks.Plugin, books_module.Books
patches = [(P, "_left_processing"), (B, "on_finished"), (B, "root_holds_data"),
           (P, "_tiny_seen"), (P, "_note_combine"), (B, "on_stopped")]
saved = [(c, n, getattr(c, n)) for c, n in patches]
for c, n, f in saved:
    setattr(c, n, timed(n, f, outer=n == "_left_processing"))
mod_saved = []
for mod, n in ((hooks, "_pieces"), (hooks, "_one_data_input")):
    mod_saved.append((mod, n, getattr(mod, n)))
    setattr(mod, n, timed(n, getattr(mod, n)))
w = build(name, STEPS[name], 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
gc.collect()
gc.disable()
r = simulate(model, workers=nworkers, threads_per_worker=4, policy="tidegate",
             bandwidth="1GB/s", record_memory=False)
gc.enable()
for c, n, f in saved:
    setattr(c, n, f)
for mod, n, f in mod_saved:
    setattr(mod, n, f)
T = len(r.trace.tasks)
print(f"{name} {nworkers}x4: {T} tasks; clock pair {per_call:.0f} ns a timed call (taken off)")
net = {k: (v[0] - v[1] * per_call, v[1]) for k, v in tot.items()}
for k, (t, n) in sorted(net.items(), key=lambda kv: -kv[1][0]):
    print(f"  {k:18s} {t / T / 1e3:7.2f} us a task inclusive  {n / T:5.2f} calls a task")
callees = sum(net[k][0] for k in net if k != "_left_processing")
own = net["_left_processing"][0] - callees
print(f"  _left_processing own (inclusive - callees' inclusive): {own / T / 1e3:.2f} us a task")
