"""Measuring real memory: a background sampler of this process's RSS (psutil)."""

from __future__ import annotations

import threading
import time

import psutil


def rss_reader():
    """A function returning this process's RSS in bytes now (~10 µs a call)."""
    proc = psutil.Process()
    return lambda: proc.memory_info().rss


class RSSSampler:
    """Sample the resident set size every ``interval`` seconds while in the ``with`` block.

    ``peak`` and ``baseline`` are bytes; ``samples`` is a list of (seconds since start, bytes)
    for plots. The sampler thread only reads /proc, so it barely disturbs the run measured.
    """

    def __init__(self, interval: float = 0.01, pid: int | None = None):
        self.interval = interval
        self._proc = psutil.Process(pid)
        self.samples: list[tuple[float, int]] = []
        self.baseline = 0
        self.peak = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _sample(self, t0: float) -> None:
        rss = self._proc.memory_info().rss
        self.samples.append((time.perf_counter() - t0, rss))
        if rss > self.peak:
            self.peak = rss

    def _loop(self, t0: float) -> None:
        while not self._stop.wait(self.interval):
            self._sample(t0)

    def __enter__(self) -> RSSSampler:
        self._t0 = t0 = time.perf_counter()
        self.baseline = self._proc.memory_info().rss
        self._sample(t0)
        self._thread = threading.Thread(target=self._loop, args=(t0,), daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        assert self._thread is not None
        self._thread.join()
        self._sample(self._t0)

    @property
    def peak_above_baseline(self) -> int:
        return max(0, self.peak - self.baseline)
