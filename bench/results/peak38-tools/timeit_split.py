"""timeit of WAVE_SPLIT's added calls on the sizes they see (peak38 findings section 3).

Placement._wave_split in a wave of share 1 at 100 / 1,000 workers: (a) the common early out
(a wave of share 2 or more), (b) all but one worker over its share, the one free worker
last in the free list (the longest walk: every free worker passed), (c) the root's partner
not over its share (no split). _owed_place's added test is one attribute read and a
membership test where a wave is on (not timed here).
Run: PYTHONPATH=<branch>/src python bench/results/peak38-tools/timeit_split.py"""
import timeit
from types import SimpleNamespace as NS

from tidegate.distributed.placement import Placement


class Ready:
    def __init__(self, n):
        self.n = n

    def roots_queued(self):
        return self.n

    def __contains__(self, ts):
        return True


def make(workers, threads, share, over):
    names = [f"w{i}" for i in range(workers)]
    books = {a: NS(threads=threads, processing=threads, roots_processing=threads) for a in names}
    full = set(names[:over])
    self = NS(_wave=[share, {a: share for a in full}, full, set(), threads],
              _ready=Ready(workers - over), books=NS(workers=books),
              scheduler=NS(total_nthreads=workers * threads))
    self._free_iter = lambda: iter(names)
    self._over_share = lambda ts: Placement._over_share(self, ts)
    return self, names


meeting = NS(dependencies=(1, 2))
plan = NS(meetings=[(meeting, None)], pair=False)
ts = NS(key="k")
for workers in (100, 1000):
    self, names = make(workers, 2, 2, workers - 1)
    t = min(timeit.repeat(lambda: Placement._wave_split(self, ts, {"w0": 1}, plan),
                          number=20000, repeat=5)) / 20000
    print(f"{workers} workers: share 2 (early out): {t * 1e9:.0f} ns")
    self, names = make(workers, 2, 1, workers - 1)
    r = Placement._wave_split(self, ts, {"w0": 1}, plan)
    assert r, r
    t = min(timeit.repeat(lambda: Placement._wave_split(self, ts, {"w0": 1}, plan),
                          number=200, repeat=5)) / 200
    print(f"{workers} workers: split, the one free worker below its share last: "
          f"{t * 1e6:.1f} us")
    self, names = make(workers, 2, 1, workers // 2)
    t = min(timeit.repeat(lambda: Placement._wave_split(self, ts, {names[-1]: 1}, plan),
                          number=20000, repeat=5)) / 20000
    print(f"{workers} workers: partner's worker below its share (no split): "
          f"{t * 1e9:.0f} ns")
