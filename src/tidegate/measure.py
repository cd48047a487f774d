"""Measuring real memory: a background sampler of this process's RSS (psutil)."""

from __future__ import annotations

import math
import os
from statistics import median
import threading
from collections import deque
import time

import numpy as np
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
# A running task's footprint in chunks of its largest input: the input, its output and two
# temporaries of that size (measured: ``(x - x.mean()).std()``'s chunk step needs three
# chunks besides its input).
TASK_FOOTPRINT = 4
MARGIN = 0.08  # of memory_limit, kept free: RSS moves between samples
MARGIN_BYTES = 4e6  # and this much: threads' stacks, the run's own books
# A group's footprint is the highest of its latest readings, this many: tasks of one
# group differ from run to run (vorticity's differences took 32 MB past their output, or
# none when numpy reused the temporary), and a footprint that decayed towards the low ones
# was a need 23 MB short for the next high one.
RECENT = 8
# A footprint replaces the guess (for a task's start, Governor.need) once this many of the
# group's tasks finished and as many readings were taken: the 2 ms sampler can miss a short
# task's temporary, or catch it half faulted in, and a reading shared by the tasks of an
# interval splits it evenly (a reduction's 10 MB product beside a load read as 4-5 MB, and
# the next tasks, started on it, took the process to 1.12x the limit in 1 run of 10).
TRUSTED = 2
TRIM_INTERVAL = 0.05  # seconds between malloc_trim calls, at least
TRIM_SPACING = 10  # Governor.restart's trims: at most a 1/10 share of the time


def neediest_first(takes, n: int) -> list[float]:
    """What ``n`` threads would run, neediest first: ``takes`` is ``(bytes, tasks left)``
    per group, and a group runs on no more threads than it has tasks left."""
    out: list[float] = []
    for nbytes, left in sorted(takes, reverse=True):
        out += [nbytes] * min(n - len(out), left)
        if len(out) >= n:
            break
    return out


def one_thread_needs(graph, sizes: np.ndarray, cuts: np.ndarray | None = None,
                     fields: np.ndarray | None = None,
                     pieces: np.ndarray | None = None) -> np.ndarray:
    """Bytes each task of ``graph`` needs at least when it runs alone, from chunk metadata
    (``sizes``: the chunk each task's layer says passes through it, NaN where none tells): a
    root loads its chunk, ``TASK_FOOTPRINT`` of them (input, output, temporaries); a task
    making a chunk holds it and the roots no metadata describes that it reads (file reads
    through ``delayed``), each guessed at the chunk it feeds. Inputs sized by metadata count
    nothing here: a layer's chunk is what passes through a task, not what it returns (a
    store returns nothing, a fused load-and-slice a slice), and each is counted as its own
    task's footprint already. (Summing them named 830 MiB for weighted's finalize of 25 stores
    and refused a rechunk that holds 250 MB.) Root chunks alone missed a step fed by reads:
    vorticity-files' step holds two 32 MB reads and three 8 MB grid fields and needed 218 MB;
    128 and 180 MB limits were not refused and ran it at 1.7x and 1.2x. Where such reads
    are guessed, a temporary of the chunk's size counts too: without it the limit named
    (200 MiB) peaked at 1.04-1.10x, once just over the bound.

    A store writing across its target's chunks (``cuts``: bytes it reads back and merges)
    holds those, its chunk and its inputs while it writes: slice-add's stores (a[1:] + b[1:]
    into chunks of 4 steps) peaked at 248 MB at one thread while roots alone named 133 MiB.

    A concatenation (:func:`concatenations_need`; ``pieces``: a rechunk's splits, their
    bytes and whether each is a view) holds its inputs and its output."""
    sizes = np.asarray(sizes, dtype=float)
    own = np.nan_to_num(sizes, nan=0.0)
    n = len(own)
    consumer = np.repeat(np.arange(n), np.diff(graph.dep_ptr))
    dep = graph.dep_idx
    unsized_root = graph.root[dep] & np.isnan(sizes[dep])
    reads = np.bincount(consumer, np.where(unsized_root, own[consumer], 0.0), minlength=n)
    need = np.where(graph.root, TASK_FOOTPRINT * own, reads + np.where(reads > 0, 2, 1) * own)
    # A tree reduction's steps concatenate their inputs, partial results each shaped like
    # their output (their layers' metadata can claim whole input chunks), and reduce the
    # concatenation: a sum's holds its inputs twice and its output; mean's and var's more
    # (``fields``: per task, fields held per input, fields out and, for a fused step, the
    # bytes of a field: bridge._reduction_steps). A sum over time of 10 MB fields, 4 per
    # combine, was let run at 48 MB and took 92 MB; a mean 142 MB at the 94 MiB named.
    # matmul's sum adds its list up: sized as a concatenation, 145 MB was refused where it
    # ran at 0.97x.
    if fields is not None:
        per_input, out, field = fields[:, 0], fields[:, 1], fields[:, 2]
        field = np.where(field > 0, field, own)
        held = (per_input * np.diff(graph.dep_ptr) + out) * field
        need = np.where(per_input > 0, np.maximum(need, held), need)
    if cuts is not None and cuts.any():
        inputs = np.bincount(consumer, own[dep], minlength=n)
        need = np.where(cuts > 0, np.maximum(need, inputs + own + cuts), need)
    if pieces is not None:
        need = np.maximum(need, concatenations_need(graph, sizes, pieces))
    return need


JOINED = 0.1  # a concatenation's inputs add up to its output within this share of it


def concatenations(graph, sizes: np.ndarray, pieces: np.ndarray) -> np.ndarray:
    """Which tasks are concatenations: two or more inputs, each sized (chunk metadata,
    else ``pieces[:, 0]``: a rechunk split's slice), adding up to the task's own chunk
    within ``JOINED``, as a rechunk's merge's do."""
    n = len(sizes)
    consumer = np.repeat(np.arange(n), np.diff(graph.dep_ptr))
    size = np.where(np.isnan(sizes), pieces[:, 0], sizes)[graph.dep_idx]
    own = np.nan_to_num(sizes, nan=0.0)
    total = np.bincount(consumer, np.nan_to_num(size), minlength=n)
    unsized = np.bincount(consumer, np.isnan(size), minlength=n) > 0
    joined = np.abs(total - own) <= JOINED * own
    return (np.diff(graph.dep_ptr) >= 2) & ~unsized & (own > 0) & joined


def concatenations_need(graph, sizes: np.ndarray, pieces: np.ndarray) -> np.ndarray:
    """Bytes each concatenation (:func:`concatenations`) holds while it runs, 0 for other
    tasks: its inputs and its output. A split that is a view (``pieces[:, 1]``) holds the
    chunk it slices: each such chunk counts once. topk's first-stage merge of 6 chunks and 2
    slices into 128 MB held 262 MB, sized 128 MB by its chunk alone: 259 MB was not refused
    and ran at 1.12-1.15x."""
    n = len(sizes)
    consumer = np.repeat(np.arange(n), np.diff(graph.dep_ptr))
    dep = graph.dep_idx
    size = np.where(np.isnan(sizes), pieces[:, 0], sizes)
    own = np.nan_to_num(sizes, nan=0.0)
    joins = concatenations(graph, sizes, pieces)
    edges = joins[consumer]
    if not edges.any():
        return np.zeros(n)
    # What each input keeps alive: a view its chunk (the view's only input), else itself.
    inputs = dep[edges]
    view = pieces[inputs, 1] == 1
    chunk = graph.dep_idx[graph.dep_ptr[inputs[view]]]
    kept = inputs.copy()
    kept[view] = np.where(np.isnan(size[chunk]), inputs[view], chunk)
    pairs = np.unique(np.stack([consumer[edges], kept]), axis=1)
    held = np.bincount(pairs[0], size[pairs[1]], minlength=n)
    return np.where(joins, held + own, 0.0)


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
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD, M_ARENA_TEST = -1, -3, -7  # mallopt's parameters
TRIM_THRESHOLD, MMAP_THRESHOLD = 65536, 128 * 1024  # bytes: see return_freed_memory_to_os
# Left after the last limited compute where glibc's parameters cannot be put back (another
# glibc): its own dynamic thresholds once a 32 MB array was freed (DEFAULT_MMAP_THRESHOLD_MAX,
# and twice that to trim), what a compute without a limit meets had tidegate set nothing.
LEFT_MMAP_THRESHOLD, LEFT_TRIM_THRESHOLD = 32 * 2**20, 64 * 2**20
_allocator_lock = threading.Lock()
_limited = 0  # limited computes running in this process
_before: tuple | None = None  # glibc's parameters before them (_thresholds), to put back
_tight = False  # the settings are on (tighten), till the last limited compute ends
# A governed run tightens glibc's settings once RSS grows past this share of its limit:
# below it, memory glibc keeps cannot take the process past the limit, and the settings'
# page faults would be paid for nothing.
TIGHTEN = 0.5
# Below this limit the settings apply from the start: glibc kept 50-90 MB free in its heaps
# on a groupby climatology at 300 MB (mmap threshold 1 MiB), and a 32 MB limit's run,
# loose till half of it, spilled 19 of its 20 MB held (test_budget, after other tests).
LOOSE_FROM = 256 * 2**20


def return_freed_memory_to_os(at_once: bool = True) -> None:
    """Make glibc give freed memory back to the OS at once, so RSS reflects what is held,
    till :func:`leave_freed_memory_to_glibc` (each limited compute calls both; the settings
    hold while any of them runs). ``at_once=False``: glibc's free memory is trimmed now,
    and the settings wait for :func:`tighten`, which a run's governor calls once its
    process nears the limit.

    glibc keeps freed chunks in its heaps, and after a large block is freed it raises its
    mmap threshold so the next ones of that size come from the heap too (freed, they stay
    in RSS). Setting the trim threshold, as distributed's nanny does with
    ``MALLOC_TRIM_THRESHOLD_=65536``, pins both: large arrays are mapped and unmapped, and a
    heap's free top goes back above 64 KiB."""
    global _limited, _before
    if _LIBC is None:
        return
    with _allocator_lock:
        _limited += 1
        first = _limited == 1
        if first:
            _before = _thresholds()
    try:
        if first:
            trim()  # what glibc kept free out of RSS before the run's first reading
        if at_once:
            tighten()
    except BaseException:  # a Ctrl-C in the trim (tens of ms): counted, so uncounted here
        leave_freed_memory_to_glibc()
        raise


def tighten() -> bool:
    """The settings of :func:`return_freed_memory_to_os`, while a limited compute runs (once
    till the last ends). They cost every array of 128 KiB or more a fresh mapping faulted
    in page by page: a histogram's 512 KiB temporaries took 480 k page faults against 4 k
    and 3x dask threaded's time at 300 MB though its process never grew past 50 MB; so a
    governed run sets them only once its process grows past ``TIGHTEN`` of the limit."""
    global _tight
    if _LIBC is None:
        return True  # nothing to set
    with _allocator_lock:
        if not _limited or _tight:
            return _tight  # not yet counted (a governor sampling before its run set up)
        _tight = True
        _LIBC.mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD)
        # Setting the trim threshold freezes the mmap threshold where it is: after the
        # process freed a 32 MB array before its first compute (writing the inputs, say),
        # glibc had raised it past 32 MB, and the chunks freed in the compute stayed in RSS
        # (100 MB of vorticity's 200 at one thread). Back to glibc's default.
        _LIBC.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)
        advise_huge_pages()
        trim()
        return True


def leave_freed_memory_to_glibc() -> None:
    """After the last limited compute running: glibc's thresholds as they were before it,
    dynamic again, and no huge page advice, so that a compute without a limit later in the
    process reuses freed memory as it would have. (Left pinned, every array of 128 KiB or
    more stayed a fresh mapping faulted in page by page: dask threaded took 4x its time and
    55x its page faults on a groupby climatology after one at 300 MB, bench/climatology.py.)"""
    global _limited, _tight
    if _LIBC is None:
        return
    with _allocator_lock:
        _limited -= 1
        if _limited or not _tight:
            return
        _tight = False
        if _before is None:
            _LIBC.mallopt(M_TRIM_THRESHOLD, LEFT_TRIM_THRESHOLD)
            _LIBC.mallopt(M_MMAP_THRESHOLD, LEFT_MMAP_THRESHOLD)
        else:
            _set_thresholds(_before)


# glibc's malloc parameters (``mp_`` in malloc.c, the same from 2.35 to 2.42): words of 8
# bytes from the trim threshold; the hugepage size for THP advice is the sixth; the int
# telling that the thresholds were set (and so no longer follow freed blocks) at byte 72.
_MP_TRIM_THRESHOLD, _MP_MMAP_THRESHOLD, _MP_ARENA_TEST = 0, 2, 3
_MP_THP_PAGESIZE, _MP_HP_PAGESIZE, _MP_NO_DYN_BYTE = 5, 6, 72
_MP_VERSIONS = ((2, 35), (2, 42))
ARENA_TEST = 8  # glibc's arena_test on 64 bits (NARENAS_FROM_NCORES(1))
_MARKER = 1_234_567_891  # an arena_test no one sets: finds mp_ among libc's data
_MP: list = []  # [mp_'s address or None], once looked for
HUGE_PAGES = False  # whether glibc advises huge pages for its large blocks in limited computes
_huge_pages_checked = False


def _thresholds() -> tuple | None:
    """glibc's (trim threshold, mmap threshold, whether set, THP page size) now, or None
    where its parameters are not found."""
    import ctypes

    mp = _malloc_parameters()
    if mp is None:
        return None
    word = ctypes.c_size_t.from_address
    return (word(mp + 8 * _MP_TRIM_THRESHOLD).value, word(mp + 8 * _MP_MMAP_THRESHOLD).value,
            ctypes.c_int.from_address(mp + _MP_NO_DYN_BYTE).value,
            word(mp + 8 * _MP_THP_PAGESIZE).value)  # fmt: skip


def _set_thresholds(values: tuple) -> None:
    """Write back what :func:`_thresholds` read. (glibc writes the thresholds so too, without
    a lock, when a freed block raises them.)"""
    import ctypes

    mp = _MP[0]
    trim, mmap, no_dyn, thp = values
    ctypes.c_size_t.from_address(mp + 8 * _MP_TRIM_THRESHOLD).value = trim
    ctypes.c_size_t.from_address(mp + 8 * _MP_MMAP_THRESHOLD).value = mmap
    ctypes.c_size_t.from_address(mp + 8 * _MP_THP_PAGESIZE).value = thp
    ctypes.c_int.from_address(mp + _MP_NO_DYN_BYTE).value = no_dyn


def advise_huge_pages() -> bool:
    """Make glibc advise transparent huge pages (``madvise(MADV_HUGEPAGE)``) for each block
    it maps, as ``GLIBC_TUNABLES=glibc.malloc.hugetlb=1`` does when set before the process
    starts. With every large array a fresh mapping (``return_freed_memory_to_os``), the
    kernel otherwise faults it in 4 KiB pages: a 32 MB chunk read from zarr is 7,813 faults,
    and tidegate took 2.4-3.1x dask threaded's page faults and 1.4-1.9x its system CPU on
    the seed workloads at 300 MB, its user CPU unchanged
    (bench/results/excess13-findings.txt). numpy advises its own arrays; the bytes zarr
    reads files into and compressors write into are glibc's.

    glibc reads that tunable at startup only, so this writes the hugepage size into its
    parameters (:func:`_malloc_parameters`), checked once by a block mapped afterwards:
    only on glibc 2.35-2.42, with THP in ``madvise`` mode."""
    global HUGE_PAGES, _huge_pages_checked
    mp = _malloc_parameters()
    if mp is None or _thp_mode() != "madvise" or (_huge_pages_checked and not HUGE_PAGES):
        return False
    import ctypes

    page = ctypes.c_size_t.from_address(mp + 8 * _MP_THP_PAGESIZE)
    if page.value == 0:  # else the tunable was set
        page.value = _huge_page_size()
        if not _huge_pages_checked and not _large_blocks_advised():
            page.value = 0
    _huge_pages_checked = True
    HUGE_PAGES = page.value != 0
    return HUGE_PAGES


def _malloc_parameters() -> int | None:
    """The address of glibc's ``mp_`` (looked for once), or None."""
    if not _MP:
        found = None
        if _LIBC is not None and _glibc_in(_MP_VERSIONS):
            found = _find_malloc_parameters()
        _MP.append(found)
    return _MP[0]


HEAP_MAX = 64 * 2**20  # a thread arena's heap at most: a block past it is mapped


def _glibc_in(versions) -> bool:
    import ctypes

    try:
        get = _LIBC.gnu_get_libc_version
    except AttributeError:
        return False
    get.restype = ctypes.c_char_p
    version = tuple(int(x) for x in get().decode().split(".")[:2])
    return versions[0] <= version <= versions[1]


def _thp_mode() -> str | None:
    """The kernel's THP mode (always, madvise or never), or None."""
    try:
        with open("/sys/kernel/mm/transparent_hugepage/enabled") as f:
            text = f.read()
    except OSError:
        return None
    return text.split("[", 1)[1].split("]", 1)[0] if "[" in text else None


def _huge_page_size() -> int:
    try:
        with open("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size") as f:
            return int(f.read())
    except (OSError, ValueError):
        return 2 * 2**20


def _find_malloc_parameters() -> int | None:
    """The address of glibc's ``mp_``: the one word in libc's writable data that holds the
    marker arena_test (which only matters while a process has few arenas, and leaves the
    thresholds as they are), thresholds of at most 32 MiB (DEFAULT_MMAP_THRESHOLD_MAX)
    before it, no THP size or the kernel's and no hugetlb size after; glibc's default
    arena_test then set through ``mallopt`` must show there."""
    import ctypes

    words = []
    _LIBC.mallopt(M_ARENA_TEST, _MARKER)
    try:
        for start, stop in _libc_data():
            raw = np.frombuffer(ctypes.string_at(start, stop - start), dtype=np.uint64)
            at = np.flatnonzero(raw[: len(raw) - _MP_HP_PAGESIZE] == _MARKER) - _MP_ARENA_TEST
            for k in at[at >= 0]:
                if (0 < raw[k + _MP_MMAP_THRESHOLD] <= HEAP_MAX // 2
                        and raw[k + _MP_THP_PAGESIZE] in (0, _huge_page_size())
                        and raw[k + _MP_HP_PAGESIZE] == 0):  # fmt: skip
                    words.append(start + 8 * int(k))
    finally:
        _LIBC.mallopt(M_ARENA_TEST, ARENA_TEST)
    if len(words) != 1:
        return None
    if ctypes.c_size_t.from_address(words[0] + 8 * _MP_ARENA_TEST).value != ARENA_TEST:
        return None
    if ctypes.c_int.from_address(words[0] + _MP_NO_DYN_BYTE).value not in (0, 1):
        return None
    return words[0]


def _libc_data() -> list[tuple[int, int]]:
    """libc's writable mappings as (start, stop): its data, and its bss (the anonymous
    writable mapping right after it)."""
    with open("/proc/self/maps") as f:
        maps = [line.split() for line in f]
    out = []
    for fields, after in zip(maps, maps[1:] + [None]):
        if fields[1].startswith("rw") and os.path.basename(fields[-1]).startswith("libc.so"):
            start, stop = (int(x, 16) for x in fields[0].split("-"))
            out.append((start, stop))
            if after is not None and len(after) == 5 and after[1].startswith("rw"):
                a, b = (int(x, 16) for x in after[0].split("-"))
                if a == stop:
                    out.append((a, b))
    return out


def _large_blocks_advised() -> bool:
    """Whether a block glibc maps now carries the hugepage advice (smaps' VmFlags ``hg``).
    The block is larger than a thread's heap and never touched; one carved from the main
    heap (its chunk header's IS_MMAPPED bit clear) tells nothing: no."""
    import ctypes

    _LIBC.malloc.restype = ctypes.c_void_p
    _LIBC.malloc.argtypes = [ctypes.c_size_t]
    _LIBC.free.argtypes = [ctypes.c_void_p]
    p = _LIBC.malloc(2 * HEAP_MAX)
    if not p:
        return False
    try:
        mapped = ctypes.c_size_t.from_address(p - 8).value & 2
        return bool(mapped) and "hg" in _vm_flags(p)
    finally:
        _LIBC.free(p)


def _vm_flags(address: int) -> list[str]:
    """The VmFlags of the mapping holding ``address`` (/proc/self/smaps)."""
    inside = False
    with open("/proc/self/smaps") as f:
        for line in f:
            head = line.split(None, 1)[0]
            if "-" in head and not head.endswith(":"):
                start, stop = (int(x, 16) for x in head.split("-"))
                inside = start <= address < stop
            elif inside and head == "VmFlags:":
                return line.split()[1:]
    return []


def trim() -> None:
    """``malloc_trim(0)``: free pages inside glibc's heaps go back to the OS."""
    if _LIBC is not None:
        _LIBC.malloc_trim(0)


class Governor:
    """Steers a run's budget for held results so that the process's memory (RSS) above
    ``baseline`` stays within ``limit``.

    A thread samples RSS every ``interval`` seconds and keeps the highest reading since the
    runtime last asked. The runtime asks after each batch of events, telling what it
    counts (results held, values waiting for the disk) and which groups' tasks ran
    meanwhile. The rest of the highest reading is what those tasks needed besides their
    held inputs (outputs, temporaries, copies; the allocator's slack and anything leaked
    too), shared among them: each group's footprint is the largest of its latest
    ``RECENT`` shares; a task starts on it (:meth:`need`) once it is trusted
    (:meth:`trusted`), till then on the larger of it and the guess. A group not seen yet is
    guessed as ``TASK_FOOTPRINT - 1`` times the larger of ``chunk`` (array metadata) and the
    largest result so far, or times its tasks' inputs where those are known to be smaller
    (``inputs``: the bytes of a task's inputs per unseen group whose input groups all ran;
    a task combining small results needs no room for a chunk). The room kept for running
    tasks gives the threads to the neediest of the groups passed as ``upcoming`` (the
    runtime passes those measured and those about to run), each at its typical reading
    (the median of its latest); the budget is what is held plus what the limit leaves
    after the reading (less the backlog, about to leave), the room still to keep and a
    margin, never below ``floor``. (With exact accounting that is the limit less the
    backlog, the room and the margin; measured against RSS, results ``dask.sizeof`` counts
    twice cost what they cost.)
    While RSS is near the limit the sampler calls ``malloc_trim`` (at most every 50 ms) so
    freed memory shows as freed.
    """

    def __init__(self, limit: float, baseline: int, floor: float = 0.0, chunk: float = 0.0,
                 interval: float = 0.002, pending=None):  # fmt: skip
        self.limit = limit
        # Bytes on their way to disk now (a callable), read with each sample: the highest
        # reading less what was then about to leave. (Less the backlog at the ask instead,
        # a spill written in between counted as a task's footprint: sub's grew to 97 MB.)
        self._pending = pending
        self.baseline = baseline
        self.floor = floor
        self.chunk = chunk
        self.footprint: dict = {}  # group -> bytes a running task of it needs past its inputs
        self.sized: dict = {}  # group -> the largest input bytes its footprint was read with
        self._recent: dict = {}  # group -> its latest readings (RECENT of them)
        self._typical: dict = {}  # group -> the median of those
        self.finished: dict = {}  # group -> its tasks finished (the runtime counts them)
        self.overhead = 0.0  # room kept for running tasks at the latest ask
        self.room = math.inf  # the latest budget before its floor
        self.ceiling = math.inf  # what held results plus running tasks' needs may reach
        self.usable = (1 - MARGIN) * limit - MARGIN_BYTES  # the limit less the margin
        self.interval = interval
        self.peak = 0  # highest RSS above baseline seen
        self.now = 0  # latest RSS above baseline
        self.trims = 0
        # (highest reading, held, backlog, overhead seen, footprint kept, room) per ask
        self.history: deque = deque(maxlen=1000)
        self._max = 0
        self._net = 0  # latest reading less the bytes then on their way to disk
        self._before = 0.0  # of the reading: the process's before any task ran (start)
        self._start = 0  # the net reading when the runtime last acted (restart)
        # The sampler's readings and the runtime's (restart, budget) move the baseline and
        # the readings together: one at a time, so that none mixes two baselines.
        self._lock = threading.RLock()
        self._proc = psutil.Process()
        self._stop = threading.Event()
        self._last_trim = 0.0
        self._next_trim = 0.0  # restart's trims: not before (TRIM_SPACING)
        self._trim_costs: deque = deque(maxlen=8)  # CPU seconds of restart's latest trims
        self._thread = threading.Thread(target=self._loop, name="tidegate-rss", daemon=True)

    def start(self) -> Governor:
        self._read()
        self._start = self._net
        # Memory above the baseline before any task ran (the graph dask materialises inside
        # get(), the runtime's books and threads) is in every reading but no task's.
        self._before = max(0, self._net)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def _read(self) -> int:
        with self._lock:
            rss = self._proc.memory_info().rss
            if rss < self.baseline:
                self._lower_baseline(rss)
            above = rss - self.baseline
            self.now = above
            if above > self.peak:
                self.peak = above
            net = self._net = above - self._pending() if self._pending is not None else above
            if net > self._max:
                self._max = net
            return above

    def _lower_baseline(self, rss: int) -> None:
        """The limit counts from the lowest RSS since the run started: memory the process
        held then and gave back since is no room for the run. (glibc keeps a thread heap's
        free top, which malloc_trim leaves, till a block freed in that heap finds the trim
        threshold low: 40 MB so given back by a worker read as 40 MB of room, and a run at
        1 MB that spills 29 MB spilled nothing.) Readings kept from before stay: taken above
        a baseline that still held what was given back, they count what the run grew by.
        (Moved with the baseline, they read it as the run's: 40 MB given back by another
        thread in a run at 32 MB holding 21 read 40 MB, its group's footprint 19 MB, and
        its budget fell to 6 MB.)"""
        self.baseline = rss

    def fresh(self) -> int:
        """RSS above baseline now, read apart from the sampler (its books untouched)."""
        return self._proc.memory_info().rss - self.baseline

    @property
    def latest(self) -> float:
        """The latest reading above baseline, less what was then on its way to disk."""
        return self._net

    def _loop(self) -> None:
        clock = time.perf_counter
        near = (1 - MARGIN) * self.limit
        loose = self.usable * TIGHTEN  # glibc's settings wait till RSS grows past this
        while not self._stop.wait(self.interval):
            above = self._read()
            if above > loose and tighten():  # else again at the next reading
                loose = math.inf
                self._read()
            if above > near and clock() - self._last_trim > TRIM_INTERVAL:
                trim()
                self._last_trim = clock()
                self.trims += 1
                self._read()

    def need(self, group, largest: float, inputs: dict, output: float) -> float:
        """Bytes a running task of ``group`` needs besides its inputs: its measured
        footprint (past the result it returned) plus that result once trusted
        (:meth:`trusted`), else the guess (as for the room in :meth:`budget`), or the
        larger of the two while a footprint is not trusted yet."""
        f = self.footprint.get(group)
        if f is not None and self.trusted(group):
            return f + output
        guess = _guessed(group, self.guess(largest), inputs)
        return guess if f is None else max(f + output, guess)

    def occupies(self, group, need: float, largest: float, inputs: dict) -> float:
        """What a running task of ``group`` takes for how many tasks fit at once
        (local_steering._threads_that_fit), given its :meth:`need`: that need once trusted; until
        then with its inputs, those known for an unseen group (``inputs``) or a chunk, so
        that the guess (three chunks past a chunk of input) is the chunk rule's four.
        (Without them the guess always passed for less than four chunks: two threads ran
        at 276 MB before anything was measured.) A trusted need leaves its inputs out:
        they are held results, in the held bytes the thread rules and the core's gate
        count already. Counted per task as well, each buffer once, the second thread went
        at 276 MB (rechunk-add 1.29-1.31 -> 0.92-0.94 tasks at once and 64 -> 384-448 MB
        written; vorticity 1.51-1.54 -> 1.31-1.40), where peaks were 0.72-0.83x; counted
        as dask.sizeof counts them, vorticity went to 0.90."""
        if self.trusted(group):
            return need
        return need + inputs.get(group, max(self.chunk, largest))

    def trusted(self, group) -> bool:
        """Does the group's footprint rest on ``TRUSTED`` of its tasks finished and as many
        readings? (Two tasks ending in one batch give one reading.)"""
        return self.finished.get(group, 0) >= TRUSTED and self.readings(group) >= TRUSTED

    def typical(self, group) -> float:
        """The median of the group's latest readings (its footprint when none is kept)."""
        return self._typical.get(group, self.footprint[group])

    def readings(self, group) -> int:
        """How many of the group's latest readings its footprint rests on."""
        seen = self._recent.get(group)
        return len(seen) if seen is not None else 0

    def restart(self) -> None:
        """The runtime acted on the last budget (released, spilled, started tasks): the
        highest reading counts from now. (Counted from the last ask, it kept the inputs
        released just after it, and charged them to the next task: 50 MB to a
        subtraction that allocates only its output.) The reading now is where the
        tasks starting now start from: what the process grows by until the next ask is
        theirs (and the results and loads they bring), whatever the books count as held.

        With glibc's settings on (:func:`tighten`), what the runtime released goes back to the
        OS first: a thread inheriting an arena whose heap holds free chunks (a loose
        compute's thread left them; the trim at the run's start left them free, not
        resident) has blocks of 128 KiB and more carved from them instead of mapped, and
        freed they stay resident till a trim: 1 MB loads released one by one read as 19 MB
        of footprint in a run at 32 MB, which spilled 8-10 of its 20 MB in 3-4 of 8 runs.
        A trim walks every free chunk, though: microseconds in a clean heap, 5-25 ms in one
        with thousands of small holes (a notebook's process), where a trim per batch made
        0.5 MB tasks at 100 MB take 2x their time (review18). So trims take at most about
        ``1 / TRIM_SPACING`` of the time: none for ``TRIM_SPACING`` times the median CPU of
        the last 8 trims. (The median: the one trim that hands an inherited heap's pages back
        costs 3-6 ms against 16 us for the rest; spaced by it alone, the releases after it
        stayed resident and a run spilled them.)"""
        with self._lock:
            if _tight:
                now = time.perf_counter()
                if now >= self._next_trim:
                    cpu = time.thread_time()  # its work: a busy machine's waits are not
                    trim()
                    costs = self._trim_costs
                    costs.append(time.thread_time() - cpu)
                    self._next_trim = now + TRIM_SPACING * median(costs)
            self._read()
            self._start = self._net
            self._max = -math.inf

    def guess(self, largest: float) -> float:
        return (TASK_FOOTPRINT - 1) * max(self.chunk, largest)

    def budget(self, held: float, backlog: float, ran: list, threads: int, upcoming: dict,
               largest: float = 0.0, inputs: dict | None = None,
               ran_inputs: list | None = None, fresh: float | None = None) -> float:  # fmt: skip
        """The budget for held results now. ``held`` and ``backlog``: bytes held and on
        their way to disk at the highest reading since the last call; ``ran``: the groups
        of the tasks running meanwhile (one entry per task); ``ran_inputs``: the bytes of
        those tasks' inputs (same order); ``fresh``: bytes of the results that arrived and
        of the inputs read back from disk since the last ask; ``upcoming``: ``{group: tasks
        left}`` for the groups that may run while this budget holds; ``largest``: the
        largest result so far.

        A footprint is the larger of two readings: the highest reading less what is held
        (and on its way to disk), and what the process grew by since the runtime last acted
        (``restart``) less ``fresh``. The first alone depends on held bytes counted right:
        vorticity's slices of one buffer, counted 32 MB over, read a 58 MB difference as
        needing 8 MB past its output, and at the smallest limit named the run reached 1.12x.

        ``sized`` keeps, per group, the largest inputs its footprint was read with: the
        footprint holds for tasks up to that size (core.sized). A reading from tasks with
        less than half those inputs (a pad's one-row edges beside its full chunks) may
        raise a footprint but not lower it; a footprint is the highest of the group's
        latest readings (``RECENT``)."""
        with self._lock:
            self._read()  # at least one reading in the interval, however short
            high, self._max, start = self._max, self._net, self._start
            latest = self._net
        if self._pending is not None:
            backlog = 0.0  # each reading is already less what was on its way to disk
        # What the process held before the first task (``start``) and holds still: at most
        # what the latest reading shows past the results held. Not the running tasks'
        # (review23: a 20,000-task graph's 20 MB, read as the first tasks' footprint, had
        # 800-byte sums need 10-25 MiB each and run on one thread of two).
        self._before = before = min(self._before, max(0.0, latest - held - backlog))
        over = max(0.0, high - held - backlog - before)
        feet, sized = self.footprint, self.sized
        guess = self.guess(largest)
        inputs = inputs or {}
        if ran:
            grew = high - start - fresh if fresh is not None else 0.0
            size: dict = {}
            for k, g in enumerate(ran):
                b = ran_inputs[k] if ran_inputs is not None else 0.0
                size[g] = max(size.get(g, 0.0), b)
            # Shared evenly. (In proportion to what each group was thought to need, a 10 MB
            # product beside a load read right, but running-total at 300 MB, its needs
            # guessed high, ran 1.5-1.8 tasks at once against 1.9.)
            share = max(over, grew) / len(ran)
            recent = self._recent
            for g, b in size.items():
                seen = recent.get(g)
                if seen is None:
                    seen = recent[g] = deque(maxlen=RECENT)
                if share >= feet.get(g, -1.0) or 2 * b >= sized.get(g, 0.0):
                    seen.append(share)
                    feet[g] = max(seen)
                    # Kept here, not per ask: np.median at every ask of every group cost
                    # vorticity 0.3 s of the scheduling thread's CPU at 300 MB.
                    self._typical[g] = median(seen)
                sized[g] = max(sized.get(g, 0.0), b)
        # A measured group counts its typical reading: this room decides only how many
        # threads run (each task still starts within its group's largest reading, the
        # core's gate), and one high reading among stack-sum's stores (99 MB, against
        # 62-80) left 74.9 MB of room for held results against a floor of 75 at 300 MB: one
        # thread for the rest of the run.
        needs = sorted(((self._footprint(g, guess, inputs), g) for g in upcoming), reverse=True)
        need = needs[0][0] if needs else 0.0
        # Room kept for running tasks: what they may need, less what the reading shows of it.
        # The threads go to the neediest groups first, each taking no more threads than it
        # has tasks left (``upcoming``: group -> tasks left).
        self.overhead = sum(neediest_first([(n, upcoming[g]) for n, g in needs], threads))
        reserve = max(0.0, self.overhead - over)
        # Relative to what is held, so that results dask.sizeof counts more than once (views
        # of one buffer) cost what they cost; values on their way to disk are about to go.
        usable = self.usable
        room = self.room = held + usable - (high - backlog) - reserve
        # What held results and running tasks' needs may reach, in held bytes as counted:
        # the usable limit, plus what the count exceeds the reading by (views of one
        # buffer counted twice), less nothing for running tasks (their needs are counted
        # by whoever starts them: core._make_room).
        self.ceiling = held + usable - (high - backlog) + over
        self.history.append((high, held, backlog, over, need, room))
        return max(self.floor, room)

    def _footprint(self, group, guess: float, inputs: dict) -> float:
        """The group's typical reading, else (not measured yet) its guess: the room for
        running tasks decides only how many threads run (each task still starts within
        :meth:`need`, the core's gate, untrusted readings included)."""
        if group in self.footprint:
            return self.typical(group)
        return _guessed(group, guess, inputs)


def _guessed(group, guess: float, inputs: dict) -> float:
    """An unmeasured group's need: the guess from the chunk size, or ``TASK_FOOTPRINT - 1``
    times its tasks' inputs where those are known to be smaller."""
    return min(guess, (TASK_FOOTPRINT - 1) * inputs.get(group, math.inf))
