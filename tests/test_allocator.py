"""glibc's large blocks under a memory limit (issue 10): with every freed array given back to
the OS, each new one is a fresh mapping the kernel faults in page by page; advised for huge
pages, in 2 MiB pages (tidegate's page faults and system CPU fall to dask threaded's)."""

import textwrap

import pytest

from tidegate import measure

from conftest import run_fresh

RUNNER = textwrap.dedent(
    """
    import ctypes, json
    import dask.array as da, numpy as np, tidegate
    from tidegate import measure
    for _ in range(3):  # freed blocks before the compute (writing its inputs, say) raise
        np.ones(4_000_000).sum()  # glibc's mmap threshold: the next ones come from its heap
    da.ones((400, 1000), chunks=(100, 1000)).sum().compute(
        scheduler=tidegate.get, memory_limit=200e6)
    # glibc's, as zarr's read buffers are (numpy advises its own); past any free space in
    # glibc's heaps, so mapped afresh (calloc's: never touched)
    block = bytearray(2 * measure.HEAP_MAX)
    address = ctypes.addressof(ctypes.c_char.from_buffer(block))
    mapped = bool(ctypes.c_size_t.from_address(address - 8).value & 2)  # glibc's IS_MMAPPED
    print(json.dumps({"mapped": mapped, "advised": "hg" in measure._vm_flags(address),
                      "huge_pages": measure.HUGE_PAGES}))
    """
)


@pytest.mark.skipif(
    measure._LIBC is None or not measure._glibc_in(measure._MP_VERSIONS)
    or measure._thp_mode() != "madvise",
    reason="glibc 2.35-2.42 with transparent huge pages in madvise mode only",
)  # fmt: skip
def test_a_limited_compute_leaves_glibc_advising_huge_pages_for_large_blocks(tmp_path):
    got = run_fresh(RUNNER, spill_dir=tmp_path)
    assert got == {"mapped": True, "advised": True, "huge_pages": True}
