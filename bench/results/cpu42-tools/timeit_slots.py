"""(cpu42) TaskState.state / .prefix (dask's properties: a Python frame each) against the
reads that replace them (._state, .group.prefix), alternated, thread time, median of 15
repeats x 200,000 reads, ns a read. python timeit_slots.py"""
import statistics
import time

from distributed.scheduler import TaskGroup, TaskPrefix, TaskState

ts = TaskState.__new__(TaskState)
ts._state = "processing"
ts.group = TaskGroup("x-1", TaskPrefix("x"))
N = 200_000
forms = {
    "ts.state": lambda: [ts.state for _ in range(N)],
    "ts._state": lambda: [ts._state for _ in range(N)],
    "ts.prefix": lambda: [ts.prefix for _ in range(N)],
    "ts.group.prefix": lambda: [ts.group.prefix for _ in range(N)],
    "(loop alone)": lambda: [ts for _ in range(N)],
}
times = {k: [] for k in forms}
for _ in range(15):
    for k, f in forms.items():
        t = time.thread_time_ns()
        f()
        times[k].append((time.thread_time_ns() - t) / N)
for k, v in times.items():
    print(f"{k:18} {statistics.median(v):6.1f} ns a read (with the loop)")
