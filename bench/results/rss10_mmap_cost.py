"""What return_freed_memory_to_os (M_MMAP_THRESHOLD 128 kiB, M_TRIM_THRESHOLD 64 kiB) costs
per 32 MB array: ``x * 2.0`` 100 times in a fresh process, glibc's defaults against tuned
(each array a fresh mmap, its pages faulted in and zeroed by the kernel), with numpy's
hugepage madvise on (its default) or off. (issue 10, session 10, rss10)

    for v in plain tuned "tuned nohuge" "plain nohuge"; do
        PYTHONPATH=src python bench/results/rss10_mmap_cost.py $v; done
"""

import resource
import sys
import time

import numpy as np

from tidegate.measure import return_freed_memory_to_os

if "tuned" in sys.argv:
    return_freed_memory_to_os()
if "nohuge" in sys.argv:
    np._core.multiarray._set_madvise_hugepage(False)
x = np.random.random((4, 1000, 1000))
r0 = resource.getrusage(resource.RUSAGE_SELF)
t0, c0 = time.perf_counter(), time.process_time()
for _ in range(100):
    y = x * 2.0
    del y
r1 = resource.getrusage(resource.RUSAGE_SELF)
print(sys.argv[1:], f"wall {(time.perf_counter() - t0) * 10:.2f} ms/array, cpu "
      f"{(time.process_time() - c0) * 10:.2f} ms, system {(r1.ru_stime - r0.ru_stime) * 10:.2f} ms, "
      f"{(r1.ru_minflt - r0.ru_minflt) / 100:.0f} faults")
