"""glibc's settings under a memory limit (issue 10). While a limited compute runs, every freed
array goes back to the OS (each new one a fresh mapping the kernel faults in page by page;
advised for huge pages, in 2 MiB pages). Once the last one ends, glibc's own thresholds are
back, so that a compute without a limit reuses freed memory as it would have."""

import math
import textwrap
import threading
import time

import dask
import dask.array as da
import numpy as np
import pytest

import tidegate
from tidegate import measure

from conftest import run_fresh

glibc_parameters = pytest.mark.skipif(
    measure._LIBC is None or not measure._glibc_in(measure._MP_VERSIONS),
    reason="glibc 2.35-2.42 only (its parameters' layout)",
)

RUNNER = textwrap.dedent(
    """
    import ctypes, json, threading
    import dask, dask.array as da, numpy as np, tidegate
    from tidegate import measure
    for _ in range(3):  # freed blocks before the compute (writing its inputs, say) raise
        np.ones(4_000_000).sum()  # glibc's mmap threshold: the next ones come from its heap
    def advised(_):
        # glibc's, as zarr's read buffers are (numpy advises its own); past any free space
        # in glibc's heaps, so mapped afresh (calloc's: never touched)
        block = bytearray(2 * measure.HEAP_MAX)
        address = ctypes.addressof(ctypes.c_char.from_buffer(block))
        mapped = bool(ctypes.c_size_t.from_address(address - 8).value & 2)  # IS_MMAPPED
        return mapped and "hg" in measure._vm_flags(address)
    def near(x):  # the process grows past half its limit: the governor tightens glibc's
        hold = np.ones(int(0.6 * 400e6 / 8))
        for _ in range(500):
            if measure._tight:
                break
            threading.Event().wait(0.01)
        return advised(x)
    x = da.ones((400, 1000), chunks=(100, 1000)).sum()
    far = dask.delayed(advised)(x).compute(scheduler=tidegate.get, memory_limit=400e6)
    inside = dask.delayed(near)(x).compute(scheduler=tidegate.get, memory_limit=400e6)
    print(json.dumps({"far": far, "inside": inside, "after": advised(None),
                      "huge_pages": measure.HUGE_PAGES}))
    """
)


@pytest.mark.skipif(
    measure._LIBC is None or not measure._glibc_in(measure._MP_VERSIONS)
    or measure._thp_mode() != "madvise",
    reason="glibc 2.35-2.42 with transparent huge pages in madvise mode only",
)  # fmt: skip
def test_glibc_advises_huge_pages_for_large_blocks_during_a_limited_compute(tmp_path):
    """Advised once the process nears its limit (TIGHTEN), not while far from it, nor after."""
    got = run_fresh(RUNNER, spill_dir=tmp_path)
    assert got == {"far": False, "inside": True, "after": False, "huge_pages": True}


AFTER = textwrap.dedent(
    """
    import json, resource
    import dask.array as da, tidegate
    from tidegate import measure
    # ~800 KB chunks: each task's temporaries are that size, as an xarray groupby's are
    x = da.random.default_rng(0).random((240, 100, 1000), chunks=(1, 100, 1000))
    y = (((x * 2 + 1) ** 2 - x) / 3).sum()
    def faults(**kw):
        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        y.compute(**kw)
        return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
    faults(scheduler="threads")  # warm: numpy, dask and glibc's heaps
    alone = faults(scheduler="threads")
    far = faults(scheduler="tidegate", memory_limit=2e9)  # never near it: glibc's settings
    measure.TIGHTEN = 0.0  # a compute that nears its limit at once: tidegate's settings
    tightened, tighten = [], measure.tighten
    measure.tighten = lambda: tightened.append(1) or tighten()
    tight = faults(scheduler="tidegate", memory_limit=200e6)
    print(json.dumps({"alone": alone, "far": far, "tight": tight, "tightened": bool(tightened),
                      "after": faults(scheduler="threads")}))
    """
)


@pytest.mark.skipif(measure._LIBC is None, reason="glibc only")
def test_a_limited_compute_leaves_later_computes_reusing_freed_memory(tmp_path):
    """Under a limit every array of 128 KiB or more is mapped afresh and faulted in page by
    page; a compute without a limit afterwards in the same process reuses freed memory as
    before (on the old code, 234 k page faults here against 210 before the limited
    compute, and 4x the time on a groupby climatology)."""
    got = run_fresh(AFTER, spill_dir=tmp_path)
    # Against the same compute under tidegate's settings (~280 k): after it, threaded's
    # counts read 0.5 k, and under load now and then 40-60 k (glibc's own heap dynamics:
    # threaded alone read 54 k once), which a bound on threaded's own count failed. 60 k
    # is 0.21x tight's ~283 k, near a quarter: bound at half (session 21: 519-894 in 10
    # runs at load 12); the old code's 234 k (0.83x) still fails it.
    assert got["tightened"] and got["after"] <= got["tight"] / 2, got


@pytest.mark.skipif(measure._LIBC is None, reason="glibc only")
def test_a_compute_far_from_its_limit_keeps_glibcs_settings(tmp_path):
    """tidegate's settings wait till the process nears its limit (the default "auto" limit
    is a share of the machine's memory, seldom neared): a limited compute that stays far
    below it reuses freed memory as dask threaded does. (Set from the start, a histogram's
    512 KiB temporaries took 480 k page faults against 4 k, and 3x threaded's time.)
    Judged against the same compute under tidegate's settings (~280 k faults against ~1.7 k
    far from the limit, 57 k in 3 runs of 18 at load 9, and ~0.3 k threaded's): a bound
    on threaded's count failed at load 15."""
    got = run_fresh(AFTER, spill_dir=tmp_path)
    # Bimodal: 1.7 k, or 51-57 k now and then under load (3 runs of 18 at load 9; 2 of 10
    # at load 12, session 21: 0.18-0.20x tight, near the 0.25x this bound had); set from
    # the start (the bug) it reads tight's own count, ~283 k.
    assert got["far"] <= got["tight"] / 2, got


@glibc_parameters
def test_settings_hold_while_any_limited_compute_runs():
    """Two limited computes at once (one budget, test_budget): the one ending first leaves
    glibc's settings to the other, and the last one puts glibc's own back."""
    pinned = (measure.TRIM_THRESHOLD, measure.MMAP_THRESHOLD, 1)
    before = measure._thresholds()
    other_done, seen = threading.Event(), {}

    def outlasting(x):
        hold = np.ones(int(0.6 * 100e6 / 8))  # past half the limit: the governor tightens
        for _ in range(500):
            if measure._tight:
                break
            threading.Event().wait(0.01)
        seen["first"] = measure._thresholds()[:3]
        del hold
        assert other_done.wait(60)
        seen["after the other"] = measure._thresholds()[:3]
        return x

    x = da.ones((10, 1000), chunks=(5, 1000)).sum()
    long = threading.Thread(target=lambda: dask.delayed(outlasting)(x).compute(
        scheduler=tidegate.get, memory_limit=100e6))  # fmt: skip
    long.start()
    while "first" not in seen and long.is_alive():
        threading.Event().wait(0.01)
    x.compute(scheduler=tidegate.get, memory_limit=100e6)
    other_done.set()
    long.join()
    assert seen == {"first": pinned, "after the other": pinned}
    assert measure._thresholds() == before


SPILLING = textwrap.dedent(
    """
    import json, threading
    import dask, numpy as np, tidegate
    np.ones(4_000_000).sum()  # a 32 MB array freed: glibc's thresholds rise to 32 and 64 MiB
    def temporaries():  # 1 MB each, from this thread's heap: freed, its top keeps 40 MB
        xs = [np.ones(125_000) for _ in range(40)]
    t = threading.Thread(target=temporaries)
    t.start()
    t.join()
    # 24 loads of 400 kB all held till their sum is known: at 1 MB most go to disk
    loads = [dask.delayed(np.full)(50_000, float(i)) for i in range(24)]
    total = dask.delayed(sum)(loads)
    out = dask.delayed(sum)([dask.delayed(np.subtract)(x, total) for x in loads])
    stats = tidegate.RunStats()
    out.compute(scheduler="tidegate", num_workers=2, memory_limit=1e6, stats=stats)
    print(json.dumps({"spilled": stats.bytes_spilled}))
    """
)


@pytest.mark.skipif(measure._LIBC is None, reason="glibc only")
def test_memory_glibc_gives_back_during_a_run_is_no_room_for_it(tmp_path):
    """glibc keeps a thread heap's free top (malloc_trim leaves it) till a block freed in that
    heap meets a low trim threshold: a worker that inherits the heap gives it back during the
    run, and RSS falls below the baseline. On the old code that read as 40 MB of room and this
    run spilled nothing (it spills 29 MB without those temporaries before it)."""
    got = run_fresh(SPILLING, spill_dir=tmp_path)
    assert got["spilled"] >= 20 * 400e3, got


def test_memory_glibc_gives_back_during_a_run_is_not_charged_to_it():
    """The baseline falls with what the process gives back (a thread heap's free top), but
    the readings taken before stay: above the old baseline, they count what the run grew
    by. On the old code they rose with the fall, and the 40 MB given back read as the run's:
    this budget was 6 MB for 21 held, the group's footprint 19 MB. (Traced in the test order
    allocator-rss-budget: readings of 48-63 MB with 0-1.6 MB held at 2 and 4 MB limits, right
    after 30-63 MB fell.)"""
    from types import SimpleNamespace

    rss = [120e6]
    gov = measure.Governor(32e6, baseline=100e6)  # not started: readings by hand
    gov._proc = SimpleNamespace(memory_info=lambda: SimpleNamespace(rss=rss[0]))
    gov.restart()  # 20 MB of loads held
    rss[0] = 121e6  # one more load
    gov._read()
    rss[0] = 81e6  # another thread's heap gives its 40 MB top back
    budget = gov.budget(21e6, 0, [7], 1, {7: 1}, ran_inputs=[0.0], fresh=1e6)
    assert gov.baseline == 81e6  # what was given back is no room for the run
    assert gov.footprint[7] < 1e6 and budget >= 21e6, (gov.footprint, budget)


INHERITED = textwrap.dedent(
    """
    import json, threading
    import dask, numpy as np, tidegate
    np.ones(4_000_000).sum()  # glibc's thresholds rise to 32 and 64 MiB: settings loose
    def total(*xs):
        return sum(xs)
    def centre(x, t):
        return float((x - t / 20).sum())
    def held_twice(n):  # 20 loads of 1 MB, all held till their total is known: 21 MB
        loads = [dask.delayed(np.full)(125_000, float(i)) for i in range(n)]
        t = dask.delayed(total)(*loads)
        return dask.delayed(sum)([dask.delayed(centre)(x, t) for x in loads])
    def temporaries():  # a loose thread's heap: 40 MB of freed 1 MB chunks, then it ends
        xs = [np.ones(125_000) for _ in range(40)]
    held_twice(20).compute(scheduler="tidegate", num_workers=1, memory_limit=32e6)  # warm
    spilled = []
    for _ in range(8):
        t = threading.Thread(target=temporaries)
        t.start()
        t.join()
        stats = tidegate.RunStats()
        held_twice(20).compute(scheduler="tidegate", num_workers=1, memory_limit=32e6,
                               stats=stats)
        spilled.append(stats.bytes_spilled)
    print(json.dumps({"spilled": spilled}))
    """
)


@pytest.mark.skipif(measure._LIBC is None, reason="glibc only")
def test_blocks_carved_from_an_inherited_heap_reach_the_os_once_released(tmp_path):
    """A run's thread that inherits a loose thread's arena gets its 1 MB loads carved from
    that heap's free chunks, not mapped; released, they stay resident till a trim, so the
    runtime trims as it acts (Governor.restart). On the old code 3-4 of these 8 runs, which
    fit, spilled 8-10 of their 20 MB (the loads' releases read as the next tasks' footprint).
    Now one load of 1 MB at most, now and then (2 of 8 runs in one fresh-clone CI run, after
    the whole suite: a release between two restarts is read before the next trim)."""
    got = run_fresh(INHERITED, spill_dir=tmp_path)
    assert max(got["spilled"]) <= 1_000_000 and sum(map(bool, got["spilled"])) <= 3, got


@pytest.mark.skipif(measure._LIBC is None, reason="glibc only")
def test_a_governor_tightening_before_its_run_is_counted_tries_again():
    """A governor samples from its start, before the run counts itself a limited compute
    (review17: a big graph's ingestion had the process past half its limit already): the
    settings cannot go on yet, tighten() says so, and the sampler tries again at its next
    reading instead of giving up for the run."""
    assert measure._limited == 0
    assert measure.tighten() is False and not measure._tight
    measure.return_freed_memory_to_os(at_once=False)
    try:
        assert measure.tighten() is True and measure._tight
    finally:
        measure.leave_freed_memory_to_glibc()
    assert not measure._tight


@pytest.mark.skipif(measure._LIBC is None, reason="glibc only")
@pytest.mark.parametrize("where", ["setup's trim", "finally's join"])
def test_a_ctrl_c_leaves_no_limited_compute_counted(monkeypatch, where):
    """A Ctrl-C in the setup's trim, or in the finally while it joins the sampler (a second
    Ctrl-C), still uncounts the compute: else glibc's settings stayed on for every later
    compute in the process, tidegate or dask threaded (review18 #3)."""
    assert measure._limited == 0 and not measure._tight
    fired = []
    if where == "setup's trim":
        trim = measure.trim

        def interrupted():
            trim()
            if not fired and threading.current_thread() is threading.main_thread():
                fired.append(1)
                raise KeyboardInterrupt

        monkeypatch.setattr(measure, "trim", interrupted)
    else:
        stop = measure.Governor.stop

        def interrupted(self):
            stop(self)
            fired.append(1)
            raise KeyboardInterrupt

        monkeypatch.setattr(measure.Governor, "stop", interrupted)
    x = da.random.random((1000, 1000), chunks=(250, 250))
    with pytest.raises(KeyboardInterrupt):
        x.sum().compute(scheduler=tidegate.get, memory_limit="100MB")
    assert fired
    assert measure._limited == 0 and not measure._tight


@pytest.mark.skipif(measure._LIBC is None, reason="glibc only")
def test_the_runtime_trims_at_most_a_share_of_its_time(monkeypatch):
    """Governor.restart trims glibc's heaps after each batch while the settings are on; a
    trim walks every free chunk (5-25 ms in a heap with thousands of small holes, where a
    trim per batch made 0.5 MB tasks take 2x their time, review18 #2): after a trim of c
    seconds of CPU, none for the next TRIM_SPACING x c. Here each trim costs 3 ms of CPU.
    (Judged by the spacing, not by trims per batch: on a loaded machine batches take longer
    and more of them may trim.)"""
    calls = {"restart": 0, "trim": 0}
    trims: list[float] = []  # when each of restart's began (the sampler trims too)
    trim, restart = measure.trim, measure.Governor.restart
    restarting = threading.local()

    def costly():
        if getattr(restarting, "now", False):
            trims.append(time.perf_counter())
        end = time.thread_time() + 0.003
        while time.thread_time() < end:
            pass
        calls["trim"] += 1
        trim()

    def counted(self):
        calls["restart"] += 1
        restarting.now = True
        try:
            restart(self)
        finally:
            restarting.now = False

    monkeypatch.setattr(measure, "trim", costly)
    monkeypatch.setattr(measure.Governor, "restart", counted)
    x = da.random.random((2000, 4000), chunks=(250, 250))  # 128 chunks of 0.5 MB
    got = ((x + 1) * 2).sum(axis=0).compute(scheduler=tidegate.get, memory_limit="100MB")
    assert np.isfinite(got).all()
    assert calls["restart"] >= 50  # tight from the start (under LOOSE_FROM): all trimmed before
    gaps = np.diff(trims)
    assert len(trims) >= 2 and len(trims) < calls["restart"], calls
    # A trim's start is stamped a moment after restart read the clock it spaces by: the
    # least gap read 29.6-30.7 ms in 8 runs at load 13-14 (29.6 failed 0.99x); a trim per
    # batch (TRIM_SPACING 0 or 1) reads 3.2-4.5 ms, a spacing of 2 reads 6 ms.
    assert gaps.min(initial=math.inf) >= 0.8 * measure.TRIM_SPACING * 0.003, (gaps, calls)
