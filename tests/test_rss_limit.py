"""memory_limit bounds the process (issue 10): RSS above its level at compute start stays
within 1.1x the limit, sampled every 2 ms in a fresh process per run, on a reduction, an
anomaly, a rechunk and a store to zarr. The limits are below what dask's threaded scheduler
needs for the same graph (measured in the same process), so a scheduler that did not hold
the process back would fail."""

import os
import textwrap

import dask.array as da
import dask.utils
import pytest

import tidegate

from conftest import run_fresh

RUNNER = textwrap.dedent(
    """
    import json, sys
    import dask, dask.array as da, numpy as np, tidegate
    from tidegate.measure import RSSSampler
    case, limit, out = sys.argv[1], float(sys.argv[2]), sys.argv[3]
    rng = da.random.default_rng(0)
    x = rng.random((12000, 5000), chunks=(500, 5000))  # 480 MB in 20 MB chunks
    if case == "reduction":  # a sum over 48 steps of 10 MB fields, combined in pairs
        y = rng.random((48, 250, 5000), chunks=(1, 250, 5000)).sum(axis=0, split_every=2)
    elif case == "anomaly":
        y = (x - x.mean(axis=0)).std(axis=0)
    elif case == "rechunk":
        y = x.rechunk((12000, 200)).std(axis=0)
    elif case == "zarr":
        y = da.to_zarr((x - x.mean(axis=0)) * 2, out, compute=False, overwrite=True)

    def measured(**kw):
        with RSSSampler(0.002) as rss:
            stats = tidegate.RunStats()
            if kw["scheduler"] == "tidegate":
                kw["stats"] = stats
            got = y.compute(num_workers=2, **kw)
        return got, rss.peak_above_baseline, stats

    got, peak, stats = measured(scheduler="tidegate", memory_limit=limit)
    if case == "zarr":  # tidegate's store, read before the threaded run writes over it
        import zarr
        got = np.asarray(zarr.open_array(out)[::97, ::31])
    want, threaded, _ = measured(scheduler="threads")
    if case == "zarr":  # the threaded run's store is the reference (no third computation)
        want = np.asarray(zarr.open_array(out)[::97, ::31])
    print(json.dumps({"close": bool(np.allclose(got, want)), "peak": peak, "threaded": threaded,
                      "spilled": stats.bytes_spilled, "governor": stats.peak_memory}))
    """
)


def run(tmp_path, case, limit):
    return run_fresh(RUNNER, case, limit, tmp_path / "out.zarr", spill_dir=tmp_path)


@pytest.mark.parametrize("case,limit", [
    # reduction: threaded peaked at 110-140 MB in 20 runs, tidegate at 52. The case was
    # (x * x[::-1]).sum(0) in 10 MB chunks until session 15: threaded peaked at 46-60 MB,
    # and 1 run in 10 failed the check that 48 MB binds (dask.order pairs chunks i, n-1-i).
    ("reduction", 60e6), ("anomaly", 150e6),
    # rechunk: spills ~26x its input; its 120 MB merges once went past the limit while
    # one of them was still being written (fixed: SpillStore.settle). Each merge holds six
    # 20 MB chunks and its output, 240 MB: refused below 249 MiB (topk17; 250 MB ran at 0.97x).
    ("rechunk", 265e6), ("zarr", 150e6),
])  # fmt: skip
def test_process_memory_stays_within_the_limit(tmp_path, case, limit):
    r = run(tmp_path, case, limit)
    assert r["close"]
    assert r["threaded"] > limit, r  # the limit binds: unbounded, the run goes past it
    assert r["peak"] <= 1.1 * limit, r
    # The runtime saw the memory it steered by: its peak and this sampler's agree within
    # the bound's own 10% (5 MB failed once in CI: the anomaly's sampler missed a 6 MB
    # spike the runtime's own 2 ms sampler caught, 116.7 against 123.0 MB).
    assert r["governor"] > 0 and abs(r["governor"] - r["peak"]) <= 0.1 * limit, r
    assert [f for f in os.listdir(tmp_path) if f.startswith("tidegate-")] == []


def test_a_limit_one_thread_cannot_fit_is_refused_naming_the_smallest_that_works():
    x = da.ones((4000, 5000), chunks=(1000, 5000))  # 40 MB chunks
    started = []
    y = x.map_blocks(lambda b: started.append(1) or b).sum()
    started.clear()  # map_blocks ran it on metadata
    with pytest.raises(ValueError, match=r"cannot run task .* even on one thread") as info:
        y.compute(scheduler="tidegate", num_workers=2, memory_limit="100MB")
    assert started == []  # refused before running anything
    smallest = info.value.args[0].split("smallest memory_limit that would work is ")[1]
    smallest = dask.utils.parse_bytes(smallest.split(";")[0])
    assert 4 * 40e6 <= smallest <= 4 * 40e6 / 0.9  # a task's footprint and the margin
    assert y.compute(scheduler="tidegate", num_workers=2, memory_limit=smallest) == 2e7


def test_a_task_larger_than_the_limit_is_named_once_it_ran():
    """Without chunk metadata nothing can be refused up front: once tasks run one at a time
    and one needs more than the limit, the run warns, naming a limit that would work."""
    import numpy as np
    from dask import delayed

    def big(i):
        return float(np.ones(12_500_000).sum())  # a 100 MB temporary, a float out

    out = delayed(sum)([delayed(big)(i) for i in range(3)])
    stats = tidegate.RunStats()
    with pytest.warns(RuntimeWarning, match=r"smallest memory_limit that would work is about"):
        assert out.compute(scheduler="tidegate", memory_limit="30MB", stats=stats) == 3.75e7
    assert stats.fewest_threads == 1


def test_tasks_that_fit_one_at_a_time_are_not_called_too_large(recwarn):
    """Unmeasured tasks (delayed: no chunk metadata) start together and can pass the limit
    before their size is known; once measured they run fewer at once, within it. The
    warning must not say the limit is below one task's need and name a limit 2.5x what one
    at a time needs (review20: "smallest memory_limit that would work is about 234 MiB"
    where one thread peaked at 88 MB)."""
    import numpy as np
    from dask import delayed

    def work(i):
        tmp = np.ones(6_250_000) * i  # a 50 MB temporary
        return float(tmp[:1000].sum())

    out = delayed(sum)([delayed(work)(i) for i in range(12)])
    assert out.compute(scheduler="tidegate", memory_limit="100MB", num_workers=4) == 66_000.0
    said = [str(w.message) for w in recwarn.list if issubclass(w.category, RuntimeWarning)]
    assert not any("one task at a time" in m for m in said), said


TIME_REDUCTION = textwrap.dedent(
    """
    import json, sys
    import dask.array as da, numpy as np, tidegate
    from tidegate.measure import RSSSampler
    how, limit = sys.argv[1], float(sys.argv[2])
    rng = da.random.default_rng(0)
    x = rng.random((48, 250, 5000), chunks=(1, 250, 5000))  # 48 fields of 10 MB
    y = getattr(x, how)(axis=0)
    with RSSSampler(0.002) as rss:
        got = y.compute(scheduler="tidegate", num_workers=2, memory_limit=limit)
    want = y.compute(scheduler="threads")
    print(json.dumps({"close": bool(np.allclose(got, want)), "peak": rss.peak_above_baseline}))
    """
)


@pytest.mark.parametrize("how,step,held", [("sum", "sum-partial", 90e6),
                                           ("mean", "mean_combine-partial", 140e6)])
def test_a_tree_reductions_combines_are_sized_before_running(tmp_path, how, step, held):
    """A reduction over time of 10 MB fields: dask's tree reduction combines 4 partial
    results per task (``-partial``), concatenating them: a sum holds 40 MB in, 40 MB
    concatenated, 10 MB out; a mean twice the inputs and outputs (n and total). Only the
    final ``-aggregate`` was sized so: a 48 MB limit was let run and took 92 MB (the sum's
    combines were named once they ran), a mean took 142 MB at 94 MiB. Now a limit below
    is refused, naming one that holds."""
    rng = da.random.default_rng(0)
    y = getattr(rng.random((48, 250, 5000), chunks=(1, 250, 5000)), how)(axis=0)
    refused = rf"cannot run task \('{step}-.* even on one thread"
    with pytest.raises(ValueError, match=refused) as info:
        y.compute(scheduler="tidegate", num_workers=2, memory_limit="48MB")
    smallest = info.value.args[0].split("smallest memory_limit that would work is ")[1]
    smallest = dask.utils.parse_bytes(smallest.split(";")[0])
    assert held < smallest <= 1.2 * held  # what a combine holds, and the margin
    r = run_fresh(TIME_REDUCTION, how, smallest, spill_dir=tmp_path)
    assert r["close"]
    assert r["peak"] <= 1.1 * smallest, (r, smallest)


def test_a_reduction_step_is_sized_by_what_it_concatenates():
    """A combine concatenates its inputs' arrays: one for a sum, two for a mean (n and
    total: a time mean of 10 MB fields, sized as a sum, ran at 1.44x the 94 MiB named), none
    for matmul's sum of block products, which adds its list up (sized as a concatenation,
    x.T @ x in 32 MB products was refused at 145 MB, where it runs at 0.97x)."""
    from dask._task_spec import convert_legacy_graph

    from tidegate.bridge import _step_fields

    def steps(y):
        dsk = convert_legacy_graph(dict(y.__dask_graph__()))
        return [v for k, v in dsk.items() if "-partial-" in str(k) or "-aggregate-" in str(k)]

    x = da.ones((8000, 500), chunks=(500, 500))
    assert {_step_fields(t) for t in steps(x.max(axis=0, split_every=4))} == {(2, 1)}
    assert {_step_fields(t) for t in steps(x.mean(axis=0, split_every=4))} == {(3, 2)}
    assert {_step_fields(t) for t in steps(x.var(axis=0, split_every=4))} == {(9, 3)}
    assert {_step_fields(t) for t in steps(x.T @ x)} == {(0, 0)}


def test_a_reduction_fused_with_computes_finalize_is_sized_before_running():
    """A reduction to one chunk ends in one task fusing its aggregate with compute's
    finalize, keyed by a string no chunk metadata names: sized at nothing, var over 4
    fields of 1 MB ran at 20 MB and peaked at 32-35 MB. Sized by its inner step now."""
    x = da.random.default_rng(0).random((4, 500, 250), chunks=(1, 500, 250))
    with pytest.raises(ValueError, match=r"cannot run task 'var-aggregate-finalize-"):
        x.var(axis=0).compute(scheduler="tidegate", num_workers=2, memory_limit="20MB")


ZARR_ANOMALY = textwrap.dedent(
    """
    import json, sys
    import dask, dask.array as da, numpy as np, zarr, tidegate
    from tidegate.measure import RSSSampler
    folder, limit = sys.argv[1], float(sys.argv[2])
    z = zarr.create_array(folder + "/in.zarr", shape=(40, 1000, 1000), chunks=(4, 1000, 1000),
                          dtype="f8", compressors=None)
    rng = np.random.default_rng(0)
    for t in range(0, 40, 4):
        z[t : t + 4] = rng.random((4, 1000, 1000))  # 320 MB in 32 MB chunks, on disk
    x = da.from_zarr(folder + "/in.zarr")
    y = da.to_zarr(x - x.mean(axis=0), folder + "/out.zarr", compute=False)
    with RSSSampler(0.002) as rss:
        stats = tidegate.RunStats()
        y.compute(scheduler="tidegate", num_workers=2, memory_limit=limit, stats=stats)
    got = np.asarray(zarr.open_array(folder + "/out.zarr")[:, ::97, ::31])
    want = np.asarray((x - x.mean(axis=0))[:, ::97, ::31].compute(scheduler="threads"))
    print(json.dumps({"close": bool(np.allclose(got, want)), "peak": rss.peak_above_baseline,
                      "written": stats.spill_file_bytes, "dropped": stats.bytes_dropped,
                      "recomputed": stats.tasks_recomputed}))
    """
)


def test_zarr_reads_run_again_rather_than_go_to_disk(tmp_path):
    """An anomaly over zarr needs every chunk twice, past the mean: below the input's size
    the chunks must leave memory in between. Reading a chunk again from its zarr store costs
    less than writing it to disk and reading it back, so the chunks are dropped and read
    again: within the limit, with little written to disk (spilling wrote 304 MB here)."""
    limit = 200e6
    r = run_fresh(ZARR_ANOMALY, tmp_path, limit, spill_dir=tmp_path)
    assert r["close"]
    assert r["peak"] <= 1.1 * limit, r
    assert r["dropped"] > 0 and r["recomputed"] > 0, r
    # Issue 10's 0.5x-the-input target is for budgets that hold the working set twice
    # over; 200 MB does not, and still little goes to disk. Until session 5 this wrote
    # 32-48 MB; sessions 5-6 wrote 128-224 (every root woken past the mean ran before any
    # consumer, whose room was then made by spilling the roots read ahead); a root run
    # again just before its consumer (session 7): 0-32 MB, one chunk at most.
    assert r["written"] <= 0.2 * 320e6, r


def test_a_fused_task_is_sized_from_its_last_layer_before_it_runs(tmp_path):
    """The seed's stack-sum fuses from_zarr with stack and sum, and the aggregate with the
    store: no task has chunk metadata of its own name. Each size comes from the last layer
    of its fusion, so a limit too small for one task is refused up front, naming the
    neediest: the aggregate (two 32 MB partial sums, concatenated, summed; a root needs
    4 x 32 MB)."""
    import zarr

    from tidegate.workloads import build, make_inputs

    y = build("stack-sum", make_inputs(str(tmp_path), 8), str(tmp_path))  # 32 MB chunks
    with pytest.raises(ValueError,
                       match=r"cannot run task .*sum-aggregate-store-map.* needs about 15[0-9]"):
        y.compute(scheduler="tidegate", num_workers=2, memory_limit="100MB")
    y.compute(scheduler="tidegate", num_workers=2, memory_limit="200MB")
    a, b = (zarr.open_array(str(tmp_path / f"{n}.zarr")) for n in "ab")
    out = zarr.open_array(str(tmp_path / "stack-sum.zarr"))
    assert float(out[5, 7, 11]) == float(a[5, 7, 11] + b[5, 7, 11])


def test_a_thread_is_added_only_when_what_is_held_still_fits():
    """Raising threads lowers the budget by a thread's room: below what is held, the new
    thread's room would be made by spilling results about to be used (vorticity at 300 MB:
    419 of 423 spills came right after such a raise)."""
    from tidegate.local_steering import _threads_that_fit
    from tidegate.measure import Governor

    gov = Governor(300e6, baseline=0, floor=75e6, chunk=32e6)  # not started: no sampling
    gov.room, gov.overhead = 248e6, 96e6  # one thread's room kept, 248 MB for held results
    assert _threads_that_fit(gov, 1, 2, 0, 32e6, held=100e6) == 2
    assert _threads_that_fit(gov, 1, 2, 0, 32e6, held=192e6) == 1  # 248 - 96 < 192


def test_a_second_thread_runs_where_measured_needs_fit_not_only_chunks():
    """Vorticity at 200 MB: usable 180 MB holds one footprint of 4 x 32 MB chunks, and its
    tasks were measured to need 62-65 MB past their inputs: two of them fit beside what is
    held (each still starts only within its room, the core's gate). The chunk rule alone
    (main) ran the whole compute on one thread. Small limits too, where they hold five
    chunks (a 60 MB one on 8 MB chunks); not where they do not."""
    from tidegate.local_steering import _threads_that_fit
    from tidegate.measure import Governor

    gov = Governor(200e6, baseline=0, floor=50e6, chunk=32e6)  # not started: no sampling
    gov.room, gov.overhead = 150e6, 65e6  # one thread's room kept
    assert _threads_that_fit(gov, 1, 2, 0, 32e6, held=64e6, needs=[65e6, 65e6]) == 2
    assert _threads_that_fit(gov, 1, 2, 0, 32e6, held=64e6, needs=[]) == 1  # unmeasured
    # 150 - 65 < 90
    assert _threads_that_fit(gov, 1, 2, 0, 32e6, held=90e6, needs=[65e6, 65e6]) == 1
    small = Governor(60e6, baseline=0, floor=15e6, chunk=8e6)
    small.room, small.overhead = 40e6, 10e6
    assert _threads_that_fit(small, 1, 2, 0, 8e6, held=8e6, needs=[10e6, 10e6]) == 2
    smaller = Governor(40e6, baseline=0, floor=10e6, chunk=8e6)  # usable 32.8 MB < 5 chunks
    smaller.room, smaller.overhead = 25e6, 10e6
    assert _threads_that_fit(smaller, 1, 2, 0, 8e6, held=8e6, needs=[10e6, 10e6]) == 1


def test_an_unmeasured_group_with_small_inputs_keeps_little_room():
    """A group not run yet is guessed at 3 chunks past its input, unless its tasks' inputs
    are known to be smaller (a final task gathering store results): the guess held the
    budget back for the whole vorticity run."""
    from tidegate.measure import Governor

    gov = Governor(300e6, baseline=0, floor=0.0, chunk=32e6)
    gov.budget(0, 0, [], 2, {5: 2}, 32e6)
    assert gov.overhead == 2 * 3 * 32e6
    gov.budget(0, 0, [], 2, {5: 2}, 32e6, inputs={5: 1e3})
    assert gov.overhead == 2 * 3 * 1e3
    gov.budget(0, 0, [], 2, {5: 2}, 32e6, inputs={5: 1e9})  # never above the chunk guess
    assert gov.overhead == 2 * 3 * 32e6


def test_a_group_takes_no_more_threads_room_than_it_has_tasks_left():
    """Room for running tasks goes to the neediest groups first, each on at most as many
    threads as it has tasks left: an anomaly's one aggregate (guessed at 3 chunks) took
    every thread's room and dropped the run to one thread at 25% of threaded's peak."""
    import psutil

    from tidegate.measure import Governor

    gov = Governor(300e6, baseline=psutil.Process().memory_info().rss, floor=0.0, chunk=32e6)
    for _ in range(2):  # group 7 measured at 10 MB on two tasks; group 5 is not: 3 x 32 MB
        gov.restart()
        gov._max = 10e6
        gov.budget(0, 0, [7], 1, {7: 100}, 32e6)
        gov.finished[7] = gov.finished.get(7, 0) + 1  # as the runtime counts them
    assert gov.footprint[7] == 10e6
    gov.budget(0, 0, [], 2, {5: 1, 7: 100}, 32e6)
    assert gov.overhead == 3 * 32e6 + 10e6
    gov.budget(0, 0, [], 2, {5: 2, 7: 100}, 32e6)
    assert gov.overhead == 2 * 3 * 32e6
    gov.budget(0, 0, [], 3, {5: 1, 7: 1}, 32e6)  # fewer tasks left than threads
    assert gov.overhead == 3 * 32e6 + 10e6


def test_one_high_reading_does_not_take_a_thread_away():
    """The room kept for running tasks decides how many threads run; each task still
    starts within its group's highest reading (the core's gate). Counted at that highest
    reading, one 99 MB store among readings of 62-80 MB left held results 74.9 MB against
    a floor of 75 at 300 MB, and stack-sum ran on one thread from there on. Fails on main
    (room 2 x 99 MB, one thread)."""
    import psutil

    from tidegate.local_steering import _threads_that_fit
    from tidegate.measure import Governor

    now = psutil.Process().memory_info().rss
    gov = Governor(300e6, baseline=now, floor=90e6, chunk=32e6)  # not started: readings by hand
    for reading in (62e6, 66e6, 99e6, 68e6, 72e6):  # a store alone, nothing held
        gov.restart()
        gov._max = reading
        gov.budget(0, 0, [2], 1, {2: 20}, 32e6, ran_inputs=[32e6], fresh=0.0)
        gov.finished[2] = gov.finished.get(2, 0) + 1  # as the runtime counts them
    assert gov.footprint[2] == 99e6  # the gate's need: the highest reading
    gov.budget(0, 0, [], 2, {2: 20}, 32e6)
    assert gov.overhead == 2 * 68e6
    assert gov.room > gov.floor
    assert _threads_that_fit(gov, 2, 2, 0, 32e6) == 2


VORTICITY = textwrap.dedent(
    """
    import json, sys
    import dask.utils, tidegate
    from tidegate.measure import RSSSampler
    from tidegate.workloads import build, make_inputs
    folder = sys.argv[1]
    y = build("vorticity", make_inputs(folder, 24), folder)  # 2 x 192 MB in 32 MB chunks
    try:
        y.compute(scheduler="tidegate", num_workers=2, memory_limit="128MB")
    except ValueError as exc:
        refused = str(exc)
    else:
        refused = None
    smallest = dask.utils.parse_bytes(refused.split("would work is ")[1].split(";")[0])
    with RSSSampler(0.002) as rss:
        stats = tidegate.RunStats()
        y.compute(scheduler="tidegate", num_workers=2, memory_limit=smallest, stats=stats)
    print(json.dumps({"refused": refused, "smallest": smallest, "peak": rss.peak_above_baseline,
                      "tasks": stats.tasks}))
    """
)


def test_vorticity_at_the_smallest_limit_named_stays_within_it(tmp_path):
    """The pad-difference-rechunk pipeline is refused below one thread's footprint, naming
    the smallest limit; at that limit it runs on one thread within 1.1x of it (at 140 MB it
    once peaked at 1.19-1.23x: a task started beside a value still on its way to disk; and
    1.15x and 1.12x at 133 MiB in CI runs: a difference of 64 MB was given 41 MB of room,
    its footprint read against held bytes counted over what RSS held, and a need measured
    on its group's 32 kB edges was lent to its full chunks; and the room made for it was
    a chunk spilled while its slice stayed held, which freed nothing. Footprints read from
    what the process grew by, needs valid only up to the inputs they were measured with,
    buffers named so that a spill that frees nothing is not room (session 6): 0.70-0.76x
    in 8 runs, 4 of them beside a CPU-bound process; before: 0.67-0.98x locally)."""
    r = run_fresh(VORTICITY, tmp_path, spill_dir=tmp_path, flags=("-W", "ignore"))
    assert r["refused"] is not None and "even on one thread" in r["refused"], r
    assert 128e6 < r["smallest"] <= 150e6, r
    assert r["peak"] <= 1.1 * r["smallest"], r
    assert [f for f in os.listdir(tmp_path) if f.startswith("tidegate-")] == []


def test_no_task_starts_beside_a_value_still_on_its_way_to_disk(tmp_path, monkeypatch):
    """A spilled value stays in memory until written: the runtime starts a task only once
    the spill writer's backlog is within its bound, also for spills the core decides after
    handing out that task (on a slow disk, vorticity's tasks ran beside a 32 MB value in
    the writer's queue, on top of the held results the limit was spent on)."""
    import time

    from tidegate import local, spill
    from tidegate.workloads import build, make_inputs

    stores, seen = [], []
    init, write = spill.SpillStore.__init__, spill.SpillStore._write

    def recorded(self, *args, **kw):
        init(self, *args, **kw)
        stores.append(self)

    def slow(self, fn, value, name):
        time.sleep(0.05)  # a slow disk: the race is won by the task every time
        return write(self, fn, value, name)

    reading = local._reading

    def checked(execute):
        run_task = reading(execute)

        def run(i, inputs):
            # At the start: a spill the core decides while this task runs (a memory
            # reading's) may begin meanwhile (after it, 32 MB seen once in 213 under load)
            seen.append(stores[-1].backlog_bytes)
            return run_task(i, inputs)

        return run

    monkeypatch.setattr(spill.SpillStore, "__init__", recorded)
    monkeypatch.setattr(spill.SpillStore, "_write", slow)
    monkeypatch.setattr(local, "_reading", checked)
    # 16 steps: 8 spilled 64-96 MB a run here, and once nothing in CI (chunks are mostly
    # dropped and read again now), which left the check below unexercised.
    y = build("vorticity", make_inputs(str(tmp_path), 16), str(tmp_path))
    limit = 140e6
    stats = tidegate.RunStats()
    y.compute(scheduler="tidegate", num_workers=2, memory_limit=limit, stats=stats)
    assert stats.fewest_threads == 1 and stats.bytes_spilled > 0
    assert max(seen) <= 0.1 * limit, (max(seen), len(seen))


def test_a_footprint_is_read_after_the_runtime_acted_on_the_last_budget():
    """The highest reading counts from ``restart`` (the runtime released the inputs of the
    tasks that ended, spilled, started the next): read from the ask, the released inputs
    were charged to the next task (a subtraction was given 50-97 MB of room at 140 MB), and
    values then on their way to disk are not a task's footprint either."""
    import psutil

    from tidegate.measure import Governor

    now = psutil.Process().memory_info().rss
    gov = Governor(300e6, baseline=now, chunk=32e6)  # not started: readings by hand
    gov._max = 80e6  # read at the ask, before the runtime released 80 MB of inputs
    gov.restart()
    gov.budget(0, 0, [7], 1, {7: 1})
    assert gov.footprint[7] < 16e6  # the process grew by about nothing since
    gov = Governor(300e6, baseline=now - 60e6, chunk=32e6, pending=lambda: 50e6)
    gov.restart()
    gov.budget(0, 0, [7], 1, {7: 1})
    assert 5e6 < gov.footprint[7] < 26e6  # 60 MB above baseline, 50 of them leaving


def test_a_footprint_is_what_the_process_grew_by_whatever_held_counts():
    """What the process grew by since the runtime last acted, less the results and loads
    that arrived, is the tasks' footprint even where held bytes are counted over what RSS
    holds (vorticity's slices of one buffer: a difference that took 64 MB was read as
    needing 8 MB past its output, and the run went to 1.12x the smallest limit named)."""
    import psutil

    from tidegate.measure import Governor

    now = psutil.Process().memory_info().rss
    gov = Governor(300e6, baseline=now, chunk=32e6)  # not started: readings by hand
    gov.restart()  # about 0 above baseline: where the task starts from
    gov._max = 64e6  # the task's highest reading: its 32 MB output and a 32 MB temporary
    # held, counted: its output and 100 MB of views of buffers RSS holds once
    gov.budget(132e6, 0, [7], 1, {7: 1}, ran_inputs=[32e6], fresh=32e6)
    assert 26e6 < gov.footprint[7] < 38e6  # 64 - 32 out (counted from held: 0)
    assert gov.sized[7] == 32e6
    gov.restart()
    gov._max = 1e6  # a 1-row edge of the same group: it may not lower the footprint
    gov.budget(1e6, 0, [7], 1, {7: 1}, ran_inputs=[32e3], fresh=0.0)
    assert gov.footprint[7] > 26e6 and gov.sized[7] == 32e6


def test_a_footprint_is_trusted_for_a_start_after_two_tasks_and_two_readings():
    """A task starts within its group's guess until two of its tasks finished and two
    readings were taken: the 2 ms sampler can miss a short task's temporary (a reduction's
    10 MB product read as 4-5 MB; tasks started on that took the process to 1.12x the limit
    in 1 run of 10: the reduction case of test_process_memory_stays_within_the_limit)."""
    import psutil

    from tidegate.measure import Governor

    now = psutil.Process().memory_info().rss
    gov = Governor(300e6, baseline=now, chunk=10e6)  # not started: readings by hand
    gov.restart()
    gov._max = 5e6  # a product caught half faulted in
    gov.budget(0, 0, [2], 1, {2: 10}, 10e6)
    assert gov.footprint[2] == 5e6
    assert gov.need(2, 10e6, {}, 0.0) == 30e6  # no task of it finished: the guess
    gov.finished[2] = 2  # two tasks ended in that one batch: one reading, not trusted
    assert gov.need(2, 10e6, {}, 0.0) == 30e6
    gov.restart()
    gov._max = 11e6  # a second reading, the product whole
    gov.budget(0, 0, [2], 1, {2: 10}, 10e6)
    assert gov.need(2, 10e6, {}, 0.0) == 11e6


def test_held_views_count_their_buffer_once():
    """dask.sizeof counts every view of an array in full; held bytes as RSS sees them count
    the buffer once, and a small view of a released array keeps (and counts) all of it."""
    import numpy as np

    from tidegate.local_steering import _Buffers

    b, a = _Buffers(), np.ones(1_000_000)  # 8 MB
    b.add(0, a, 8e6)
    b.add(1, a[1:], 8e6)
    b.add(2, a[:-1], 8e6)
    assert b.surplus() == 16e6  # two views of a held array: counted, not held
    b.remove(0, a)
    assert b.surplus() == 8e6  # the views keep a's 8 MB alive: counted 16, held 8
    b.add(3, a[:10], 80)
    b.remove(1, a[1:])  # released: the task's entry goes, whatever view is passed
    b.remove(2, a[:-1])
    assert b.surplus() == 80 - 8e6  # 80 bytes counted, 8 MB kept alive


def test_threads_follow_a_need_only_once_it_is_trusted():
    """review14 #2: a group's need counts for how many tasks fit at once only once trusted
    (two tasks finished, two readings). Until then it is the guess, three chunks past a
    chunk of input, so four chunks: the chunk rule. Past its input alone the guess always
    passed for less than four chunks, and at 276 MB (usable 250 MB, under two footprints
    of 4 x 32 MB) two threads ran before anything was measured. Fails on main (no
    Governor.occupies: the runtime passed the guess, 96 MB, and two threads ran)."""
    import psutil

    from tidegate.local_steering import _threads_that_fit
    from tidegate.measure import Governor, neediest_first

    gov = Governor(276e6, baseline=psutil.Process().memory_info().rss, floor=69e6, chunk=32e6)
    gov.room, gov.overhead = 200e6, 100e6  # room enough: only the cap decides

    def fit(threads):
        need = gov.need(3, 32e6, {}, 32e6)
        return _threads_that_fit(gov, threads, 2, 0, 32e6,
                                 needs=[gov.occupies(3, need, 32e6, {})] * 2)

    assert gov.need(3, 32e6, {}, 32e6) == 96e6 and fit(2) == 1  # the guess: the chunk rule
    for _ in range(2):  # two tasks of group 3 measured at 30 MB past their 32 MB output
        gov.restart()
        gov._max = 30e6
        gov.budget(0, 0, [3], 1, {3: 20}, 32e6, ran_inputs=[32e6], fresh=0.0)
        gov.finished[3] = gov.finished.get(3, 0) + 1  # as the runtime counts them
        if not gov.trusted(3):
            assert fit(2) == 1
    assert gov.trusted(3) and gov.need(3, 32e6, {}, 32e6) == 62e6
    assert fit(1) == 2  # 250 MB holds two such tasks
    # Beside it an untrusted group with one task left (a reduction's aggregate) takes one
    # thread's share at the chunk rule, not every thread's: 128 + 62 MB fit in 250.
    takes = [(gov.occupies(g, gov.need(g, 32e6, {}, 32e6), 32e6, {}), left)
             for g, left in ((3, 20), (4, 1))]  # fmt: skip
    assert _threads_that_fit(gov, 1, 2, 0, 32e6, needs=neediest_first(takes, 2)) == 2
    assert _threads_that_fit(gov, 1, 2, 0, 32e6, needs=neediest_first([(128e6, 2)] + takes, 2)) == 1
    # An unseen group whose tasks' inputs are known small (a gather of small results)
    # takes three times them past them, not four chunks.
    assert gov.occupies(9, gov.need(9, 32e6, {9: 1e6}, 0.0), 32e6, {9: 1e6}) == 4e6


def test_threads_fit_the_neediest_tasks_added_up_not_their_average():
    """review15: one 200 MB task and twenty of 20 MB, 256 MB usable: three threads hold
    200 + 2 x 20 MB, six would need 300 (their average, 42.5 MB a thread, let 6 run)."""
    from tidegate.local_steering import _threads_that_fit
    from tidegate.measure import Governor, neediest_first

    gov = Governor(256e6 / 0.92 + 4e6, baseline=0, floor=0.0, chunk=50e6)  # not started
    gov.room, gov.overhead = 1e12, 0.0  # room enough: only the cap decides
    takes = neediest_first([(200e6, 1), (20e6, 20)], 8)
    assert takes == [200e6] + [20e6] * 7
    assert _threads_that_fit(gov, 8, 8, 0, 50e6, needs=takes) == 3
    assert _threads_that_fit(gov, 1, 8, 0, 50e6, needs=[20e6] * 2) == 2  # past them: more


UNSIZED = textwrap.dedent(
    """
    import json, sys, time
    import dask, dask.bag as db, numpy as np, tidegate
    from tidegate.measure import RSSSampler
    case, limit = sys.argv[1], float(sys.argv[2])

    def work(i):  # a 60 MB temporary no metadata tells of, 1 MB out
        tmp = np.ones(7_500_000) * i
        time.sleep(0.05)
        return tmp[:125_000].copy()

    if case == "delayed":
        parts = [dask.delayed(work)(i) for i in range(24)]
        y = dask.delayed(lambda *p: float(sum(x.sum() for x in p)))(*parts)
    elif case == "bag":
        y = db.from_sequence(range(24), npartitions=24).map(work).map(np.sum).sum()

    def measured(**kw):
        with RSSSampler(0.002) as rss:
            got = y.compute(num_workers=4, **kw)
        return got, rss.peak_above_baseline

    got, peak = measured(scheduler="tidegate", memory_limit=limit)
    want, threaded = measured(scheduler="threads")
    print(json.dumps({"close": bool(np.isclose(got, want)), "peak": peak, "threaded": threaded}))
    """
)


@pytest.mark.parametrize("case", ["delayed", "bag"])
def test_unsized_tasks_probe_one_at_a_time(tmp_path, case):
    """Tasks nothing sizes beforehand (delayed, bags: no chunk metadata, no inputs) start one
    at a time until their group is measured (core._fill's probes): the first four started
    at once, before any was measured, and peaked at 2.2-2.4x a 100 MB limit."""
    limit = 100e6
    r = run_fresh(UNSIZED, case, limit, spill_dir=tmp_path)
    assert r["close"]
    assert r["threaded"] > 1.5 * limit, r  # unbounded, four 60 MB temporaries at once
    assert r["peak"] <= 1.1 * limit, r


def test_a_task_whose_output_is_larger_than_the_limit_is_named_once_it_ran(recwarn):
    """A task's need is its footprint past its output plus that output: one returning 100
    MB at 30 MB cannot run within the limit however few run at once, and the warning must
    say so, not that measured tasks "run within the limit, fewer at once" (it compared
    the footprint past the output alone: 'big' was said to need 1.9 MiB)."""
    import numpy as np
    from dask import delayed

    def big(i):
        return np.full(12_500_000, float(i))  # a 100 MB output

    out = delayed(sum)([delayed(np.sum)(delayed(big)(i)) for i in range(3)])
    assert out.compute(scheduler="tidegate", memory_limit="30MB", num_workers=1) == 3.75e7
    said = [str(w.message) for w in recwarn.list if issubclass(w.category, RuntimeWarning)]
    assert any("smallest memory_limit that would work is about" in m for m in said), said
    assert not any("run within the limit" in m for m in said), said


MANY_SMALL = textwrap.dedent(
    """
    import json, sys
    import dask.array as da, tidegate
    x = da.ones((300, 2000), chunks=(10, 10)).map_blocks(lambda b: b + 1)  # 6,000 chunks of 800 B
    stats = tidegate.RunStats()
    got = x.sum().compute(scheduler="tidegate", num_workers=2, memory_limit=sys.argv[1],
                          stats=stats)
    print(json.dumps({"got": float(got), "fewest": stats.fewest_threads,
                      "named": stats.limit_for_all_threads, "peak": stats.peak_memory}))
    """
)


def test_the_graphs_own_memory_is_no_tasks_footprint(tmp_path):
    """The graph dask materialises inside get() (20,000 tasks: about 20 MB of RSS above the
    compute's start) is in every reading, but no task's: read as the tasks' footprint
    (nothing held, the rest of the reading theirs), 800-byte sums were said to need 10-25
    MiB each and ran on one thread of two at 60 MB, where 82 MiB was named for two
    (review23). The first compute of a fresh process: its graph grows the heap."""
    r = run_fresh(MANY_SMALL, 60e6, spill_dir=tmp_path)
    assert r["got"] == 300 * 2000 * 2
    assert r["fewest"] == 2 and r["named"] == 0, r
    assert r["peak"] <= 1.1 * 60e6, r
