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


# -- keeping the process within memory_limit ----------------------------------------------
import os
_DEBUG = bool(os.environ.get("TIDEGATE_DEBUG_GOVERNOR"))
MARGIN = 0.08  # of memory_limit, kept free: RSS moves between samples
DECAY = 0.02  # per sample, the learned overhead moves this share towards a lower reading
TRIM_INTERVAL = 0.05  # seconds between malloc_trim calls, at least


def _libc():
    """glibc through ctypes, or None (another libc, another OS)."""
    import ctypes
    import ctypes.util
    import sys

    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.malloc_trim, libc.mallopt  # noqa: B018 - both exist in glibc only
    except (OSError, AttributeError):
        return None
    return libc


_LIBC = _libc()
_tuned = False


def return_freed_memory_to_os() -> None:
    """Make glibc give freed memory back to the OS at once, so RSS reflects what is held.

    glibc keeps freed chunks in its heaps, and after a large block is freed it raises its
    mmap threshold so the next ones of that size come from the heap too (freed, they stay
    in RSS). Setting the trim threshold, as distributed's nanny does with
    ``MALLOC_TRIM_THRESHOLD_=65536``, pins both: large arrays are mapped and unmapped, and a
    heap's free top goes back above 64 KiB. Once per process, for computes with a limit."""
    global _tuned
    if _tuned or _LIBC is None:
        return
    _tuned = True
    M_TRIM_THRESHOLD = -1
    _LIBC.mallopt(M_TRIM_THRESHOLD, 65536)


def trim() -> None:
    """``malloc_trim(0)``: free pages inside glibc's heaps go back to the OS."""
    if _LIBC is not None:
        _LIBC.malloc_trim(0)


class Governor:
    """Steers a run's budget for held results so that the process's memory (RSS) above
    ``baseline`` stays within ``limit``.

    A thread samples RSS every ``interval`` seconds and keeps the highest reading since the
    runtime last asked. The runtime asks after each batch of events, telling what it
    counts: results held and values waiting for the disk. The rest of the highest reading
    is overhead (running tasks' inputs being copied, outputs and temporaries, the
    allocator's slack, anything leaked), learned as a running peak that decays slowly, never
    below ``initial_overhead`` (from chunk metadata), so the room kept for it is what
    running tasks have needed lately. The budget is what the
    limit leaves after the overhead, the backlog and a margin. While RSS is near the limit,
    the sampler calls ``malloc_trim`` (at most every 50 ms) so freed memory shows as freed.
    """

    def __init__(self, limit: float, baseline: int, floor: float = 0.0,
                 initial_overhead: float = 0.0, interval: float = 0.002):  # fmt: skip
        self.limit = limit
        self.baseline = baseline
        self.floor = floor
        self.overhead = self.least_overhead = initial_overhead
        self.interval = interval
        self.peak = 0  # highest RSS above baseline seen
        self.now = 0  # latest RSS above baseline
        self.trims = 0
        self._max = 0
        self._proc = psutil.Process()
        self._stop = threading.Event()
        self._last_trim = 0.0
        self._thread = threading.Thread(target=self._loop, name="tidegate-rss", daemon=True)

    def start(self) -> Governor:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def _read(self) -> int:
        above = self._proc.memory_info().rss - self.baseline
        self.now = above
        if above > self._max:
            self._max = above
            if above > self.peak:
                self.peak = above
        return above

    def _loop(self) -> None:
        clock = time.perf_counter
        near = (1 - MARGIN) * self.limit
        while not self._stop.wait(self.interval):
            if self._read() > near and clock() - self._last_trim > TRIM_INTERVAL:
                trim()
                self._last_trim = clock()
                self.trims += 1
                self._read()

    def budget(self, held: float, backlog: float) -> float:
        """The budget for held results now, given what is ``held`` and on its way to disk
        (``backlog``) at the highest reading since the last call."""
        high, self._max = self._max, self.now
        over = max(0.0, high - held - backlog)
        if over >= self.overhead:
            self.overhead = over
        else:
            self.overhead += (max(over, self.least_overhead) - self.overhead) * DECAY
        room = (1 - MARGIN) * self.limit - self.overhead - backlog
        if _DEBUG:
            print(f"gov high={high/1e6:.0f} held={held/1e6:.0f} backlog={backlog/1e6:.0f} "
                  f"over={over/1e6:.0f} overhead={self.overhead/1e6:.0f} room={room/1e6:.0f}")
        return max(self.floor, room)
