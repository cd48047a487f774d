"""(cpu38a) trim._occupancy's time a call for 1-6 prefixes (the sizes twin rechunk-add and
anomaly see: a worker's few prefixes, the cluster's few more), with dask's TaskPrefix
objects, durations measured. Run with each tree (alternate a few times):
PYTHONPATH=<src> python bench/results/cpu38a-tools/timeit_occupancy.py"""
import time, timeit
from types import SimpleNamespace
from distributed.scheduler import TaskPrefix
from tidegate.distributed import trim

s = SimpleNamespace(task_prefixes={}, bandwidth=1e8, validate=False, UNKNOWN_TASK_DURATION=0.5)
for i in range(6):
    p = TaskPrefix(f"p{i}")
    p.duration_average, p.max_exec_time = 0.01 * (i + 1), 0.02
    s.task_prefixes[p.name] = p
row = []
for n in (1, 2, 4, 6):
    counts = {f"p{i}": 3 + i for i in range(n)}
    t = min(timeit.repeat(lambda: trim._occupancy(s, counts, 1e6), number=20000, repeat=7, timer=time.thread_time))
    row.append(f"{n}: {t / 20000 * 1e9:.0f} ns")
print(trim.__file__, "  ".join(row))
