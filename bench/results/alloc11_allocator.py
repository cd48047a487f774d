"""What glibc's settings cost per 32 MB array, and which arenas a run's threads use
(issue 10, session 11, alloc11). Two instruments:

    python bench/results/alloc11_allocator.py micro VARIANT   # VARIANT: defaults, tuned,
        # arena1, arena1-256, big (mmap and trim thresholds at 256 MiB, arenas as they are)
    PYTHONPATH=src python bench/results/alloc11_allocator.py arenas vorticity 300MB

``micro``: 2 threads, ``x * 2``, ``+ 1``, ``np.roll``, ``-`` on a 32 MB array, 100 times
each (800 arrays), in a fresh process: CPU ms and page faults per array, RSS and glibc's
free bytes (mallinfo2 fordblks) after. ``tuned`` is main's return_freed_memory_to_os
(trim threshold 64 KiB, mmap threshold 128 KiB: every array a fresh mmap).
``arenas``: glibc's arenas (malloc_info) and their bytes before and after a tidegate
compute, in a process that wrote its inputs with dask's threaded scheduler first.
"""

import ctypes
import os
import re
import resource
import sys
import tempfile
import threading
import time

import numpy as np
import psutil

libc = ctypes.CDLL("libc.so.6")
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD, M_ARENA_MAX = -1, -3, -8
SETTINGS = {
    "defaults": [],
    "tuned": [(M_TRIM_THRESHOLD, 65536), (M_MMAP_THRESHOLD, 128 * 1024)],
    "arena1": [(M_ARENA_MAX, 1)],
    "arena1-256": [(M_ARENA_MAX, 1), (M_MMAP_THRESHOLD, 256 << 20), (M_TRIM_THRESHOLD, 256 << 20)],
    "big": [(M_MMAP_THRESHOLD, 256 << 20), (M_TRIM_THRESHOLD, 256 << 20)],
}


class MallInfo2(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in (
        "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost".split())]


libc.mallinfo2.restype = MallInfo2


def micro(variant: str) -> None:
    for option, value in SETTINGS[variant]:
        libc.mallopt(option, value)
    x = np.random.random((4, 1000, 1000))

    def work(n):
        for _ in range(n):
            y = x * 2.0
            z = y + 1
            w = np.roll(z, 1, axis=1)
            v = w - y
            del y, z, w, v

    r0 = resource.getrusage(resource.RUSAGE_SELF)
    c0 = time.process_time()
    threads = [threading.Thread(target=work, args=(100,)) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    cpu = (time.process_time() - c0) / 800 * 1e3
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    m = libc.mallinfo2()
    print(f"{variant:12s} cpu/array {cpu:5.2f} ms, system {(r1.ru_stime - r0.ru_stime) / 800 * 1e3:5.2f}"
          f" ms, faults/array {(r1.ru_minflt - r0.ru_minflt) / 800:5.0f}, RSS after "
          f"{psutil.Process().memory_info().rss / 1e6:4.0f} MB, free in glibc {m.fordblks / 1e6:4.0f} MB")


def arenas(tag: str) -> None:
    libc.fopen.restype = ctypes.c_void_p
    libc.fopen.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
    libc.malloc_info.argtypes = [ctypes.c_int, ctypes.c_void_p]
    libc.fclose.argtypes = [ctypes.c_void_p]
    with tempfile.NamedTemporaryFile(suffix=".xml") as out:
        f = libc.fopen(out.name.encode(), b"w")
        libc.malloc_info(0, f)
        libc.fclose(f)
        xml = open(out.name).read()
    heaps = re.findall(r'<heap nr="(\d+)">.*?<system type="current" size="(\d+)"/>', xml, re.S)
    print(f"{tag:14s} threads {len(os.listdir('/proc/self/task'))}, arenas (nr, MB): "
          f"{[(int(n), int(s) // 10**6) for n, s in heaps]}")


if __name__ == "__main__":
    if sys.argv[1] == "micro":
        micro(sys.argv[2])
    else:
        from tidegate.workloads import build, make_inputs

        arenas("start")
        folder = tempfile.mkdtemp()
        y = build(sys.argv[2], make_inputs(folder, 24), folder)
        arenas("inputs written")
        y.compute(scheduler="tidegate", num_workers=2, memory_limit=sys.argv[3])
        arenas("after compute")
