"""(cpu38a) What inlining Books.estimate saves a root (Books.on_run, Books.place,
refuses_further): the method call against its body's call, thread time, one process.
PYTHONPATH=src python bench/results/cpu38a-tools/timeit_estimate.py"""
import math, time, timeit
from tidegate.books import Books, estimate_output

b = Books()
b._loaded_max["g"] = 8e6
b._roots_max = 8e6
nan = math.nan
for _ in range(3):
    call = min(timeit.repeat(lambda: b.estimate(nan, "g"), number=100000, repeat=7,
                             timer=time.thread_time)) / 1e5
    inline = min(timeit.repeat(lambda: estimate_output(nan, b._loaded_max.get("g", 0.0),
                                                       b._roots_max),
                               number=100000, repeat=7, timer=time.thread_time)) / 1e5
    print(f"Books.estimate {call * 1e9:.0f} ns, inlined {inline * 1e9:.0f} ns "
          f"(the lambda's call in both)")
