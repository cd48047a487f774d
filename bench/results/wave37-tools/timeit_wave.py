"""timeit of WAVE_SHARE's added calls on the sizes they see (wave37 findings section 3).

Admission._in_wave's common path (a root placed after a stall, the line longer than the
cluster's threads: return), its worst first call (every other worker only loading roots: the
loop over all workers, then the wave begins), and Placement._over_share with a wave active.
Run: PYTHONPATH=<branch>/src python bench/results/wave37-tools/timeit_wave.py"""
import timeit
from types import SimpleNamespace as NS

from tidegate.distributed.admission import Admission
from tidegate.distributed.placement import Placement


class Ready:
    def __init__(self, n):
        self.n = n

    def roots_queued(self):
        return self.n

    def has_roots(self):
        return self.n > 0

    def __contains__(self, ts):
        return False


def make(workers, threads, line, loading=True):
    books = {f"w{i}": NS(roots_processing=threads if loading else 0, processing=threads,
                         threads=threads) for i in range(workers)}
    self = NS(_stalled=True, _wave=None, _wave_not=None, _ready=Ready(line),
              books=NS(workers=books))
    s = NS(total_nthreads=workers * threads, running=set(books))
    return self, s


for workers in (100, 1000):
    self, s = make(workers, 4, 10 * workers * 4)
    t = min(timeit.repeat(lambda: Admission._in_wave(self, s, "w0", "k"), number=20000,
                          repeat=5)) / 20000
    print(f"{workers} workers: _in_wave, long line (return): {t * 1e9:.0f} ns")

    def first():
        self._wave = self._wave_not = None
        Admission._in_wave(self, s, "w0", "k")
    self, s = make(workers, 4, workers)
    t = min(timeit.repeat(first, number=200, repeat=5)) / 200
    print(f"{workers} workers: _in_wave, wave begins (loop over all): {t * 1e6:.1f} us")

    self, s = make(workers, 4, workers, loading=False)
    t = min(timeit.repeat(first, number=2000, repeat=5)) / 2000
    print(f"{workers} workers: _in_wave, first other worker not loading (early out): "
          f"{t * 1e9:.0f} ns")

    self, s = make(workers, 4, 4)
    self._wave = [1, {f"w{i}": 1 for i in range(workers)}, {f"w{i}" for i in range(workers)},
                  set(), 4]
    self.scheduler = s
    ts = NS(key="k")
    t = min(timeit.repeat(lambda: Placement._over_share(self, ts), number=200,
                          repeat=5)) / 200
    print(f"{workers} workers: _over_share, every worker over its share: {t * 1e6:.1f} us")
