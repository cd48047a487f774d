"""(cpu39b, session 39) poke's first test of dask's queue: ``s.queued`` (HeapSet.__len__, a
Python frame) against ``getattr(s.queued, "_data", s.queued)`` (its set, read in C), on an
empty and a filled HeapSet; best of 7 x 1,000,000.

    python bench/results/cpu39b-tools/timeit_queued.py"""
import timeit
from types import SimpleNamespace

from distributed.collections import HeapSet


class T:
    def __init__(self, p):
        self.priority = p


for n in (0, 500):
    q = HeapSet(key=lambda t: t.priority)
    keep = [T(i) for i in range(n)]
    for t in keep:
        q.add(t)
    s = SimpleNamespace(queued=q)
    held = set()
    g = {"s": s, "held": held}
    a = min(timeit.repeat("not (s.queued or held)", globals=g, number=1000000, repeat=7))
    b = min(timeit.repeat('not (getattr(s.queued, "_data", s.queued) or held)', globals=g,
                          number=1000000, repeat=7))
    print(f"{n} queued: s.queued {a * 1e3:.1f} ns, getattr(s.queued, '_data', ...) "
          f"{b * 1e3:.1f} ns a test")
