"""chain24 (issue 9): a chain of roots each passing the in-flight count by completing a
consumer (probe24: ``ds.resample(time="7D").mean().to_zarr`` over 30-day zarr chunks)."""

import pytest

pytest.importorskip("xarray")
pytest.importorskip("zarr")
pytest.importorskip("distributed")

CHUNK = 30 * 90 * 180 * 8  # one 30-day chunk of a 90 x 180 f8 plane



def _resample_twins(tmp_path, threads):
    """(queue, tidegate) twin runs of the resample store at 2 x ``threads`` (measured sizes
    and durations: tidegate.sim.workloads.resample)."""
    from tidegate.sim import simulate
    from tidegate.sim.workloads import resample

    w = resample(tmp_path / "in.zarr")  # 2 variables x 731 days x 90 x 180, 30-day chunks
    assert w.sizes(("open_dataset-u", 0)) == CHUNK
    return simulate(w.graph, workers=2, threads_per_worker=threads,
                    policy=["queue", "tidegate"], sizes=w.sizes, durations=w.durations)

def test_twin_resample_over_straddled_chunks_holds_no_chain_of_loads(tmp_path):
    """Weeks straddle the 30-day chunks, so the load of chunk i+1 completes the week it
    shares with chunk i: each load passed the in-flight count by completing a consumer,
    one after another (probe24 on a 2 x 1 LocalCluster: a worker held 9 chunks against a
    cap of 2). chain24 bounded the chain (``policy.PASSES``); res27 found the rest: the
    week's waiting input held no slot, so completing it freed none (``policy.frees_slot``,
    one-thread workers). With the sizes and durations measured on the real graph, the twin
    at 2 x 1: before frees_slot 4.6 chunks against queuing's 2.7 (1.72x), now 1.00x over
    3 builds, makespan 0.97-1.01x. Fails with ``policy.FREES_SLOT = 0``."""
    queue, tide = _resample_twins(tmp_path, threads=1)
    assert max(tide.peak_memory_per_worker) <= 1.05 * max(queue.peak_memory_per_worker), (
        tide.peak_memory_per_worker, queue.peak_memory_per_worker)
    assert tide.makespan <= 1.05 * queue.makespan, tide.makespan / queue.makespan


def test_busy_pass_spares_roots_whose_meetings_are_all_pairs():
    """busy28: policy.passes_busy refuses a completing pass on a busy multi-thread worker
    (resample's roots, which also feed a 105-input week write), but not a root whose
    meetings are all pairs (rechunk-add: its 4,233 refusals at 20 x 4 / 100 x 4 cost
    +0.5-1.9% makespan and gained no peak), nor, since busy29, groups of 4 (the twin's
    anomaly 20 x 4, 1,000 steps: 122 refusals, +1.6% makespan, no peak gained)."""
    from tidegate import policy

    old = policy.BUSY_PASS
    try:
        policy.BUSY_PASS = 2
        assert not policy.passes_busy(12, 4, 105)
        assert policy.passes_busy(12, 4, 2)  # a pair's root passes however busy
        assert policy.passes_busy(12, 4, 4)  # a group of 4's too (busy29: twin anomaly 20x4)
        assert policy.passes_busy(7, 4, 105) and policy.passes_busy(12, 1, 105)
        policy.BUSY_PASS = 0
        assert policy.passes_busy(12, 4, 105)
    finally:
        policy.BUSY_PASS = old


def test_twin_resample_at_2x2_holds_about_queuings_peak(tmp_path):
    """busy29 (defaults since): frees_slot on every worker (FREES_SLOT_THREADS = 99) and no
    completing pass on a busy multi-thread worker (BUSY_PASS = 2, pairs spared), nor a
    tree-group pass for a root that also feeds a wide meeting (policy.passes_for_group's
    ``widest``): the twin's resample at 2 x 2 (5 builds) 0.97-1.02x queuing's peak, where
    main's switches (1, 0) held 1.19-1.53x. Fails with (1, 0). (2 x 4 is left out: one build
    in 6 held 1.10x there, as main's switches did.)"""
    from tidegate import policy

    assert (policy.FREES_SLOT_THREADS, policy.BUSY_PASS) == (99, 2)
    queue, tide = _resample_twins(tmp_path, threads=2)
    assert max(tide.peak_memory_per_worker) <= 1.10 * max(queue.peak_memory_per_worker), (
        tide.peak_memory_per_worker, queue.peak_memory_per_worker)
    assert tide.makespan <= 1.05 * queue.makespan, tide.makespan / queue.makespan


def test_group_pass_where_frees_slot_applies_only_for_pairs_roots():
    """busy29: where frees_slot applies (every worker), policy.passes_for_group passes a
    tree group's root (wall28 / w44's rule: 4 x 4 loaders 1.027x, refused 1.137x) only if
    every meeting of it reads two inputs at most; a resample root (a 105-input week write)
    is refused; with frees_slot on one-thread workers only, main's rule."""
    from tidegate import policy

    assert policy.passes_for_group(1, 2, 2) and not policy.passes_for_group(2, 2, 2)
    assert policy.passes_for_group(4, 4, 2) and not policy.passes_for_group(5, 4, 2)
    assert not policy.passes_for_group(0, 1, 2)
    assert not policy.passes_for_group(1, 2, 105) and not policy.passes_for_group(0, 4, 105)
    old = policy.FREES_SLOT_THREADS
    try:
        policy.FREES_SLOT_THREADS = 1
        assert policy.passes_for_group(1, 2, 105) and not policy.passes_for_group(0, 1, 2)
    finally:
        policy.FREES_SLOT_THREADS = old
