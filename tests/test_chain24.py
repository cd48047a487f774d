"""chain24 (issue 9): a chain of roots each passing the in-flight count by completing a
consumer (probe24: ``ds.resample(time="7D").mean().to_zarr`` over 30-day zarr chunks)."""

import pytest

pytest.importorskip("xarray")
pytest.importorskip("zarr")
pytest.importorskip("distributed")

CHUNK = 30 * 90 * 180 * 8  # one 30-day chunk of a 90 x 180 f8 plane


def test_twin_resample_over_straddled_chunks_holds_no_chain_of_loads(tmp_path):
    """Weeks straddle the 30-day chunks, so the load of chunk i+1 completes the week it
    shares with chunk i: each load passed the in-flight count by completing a consumer,
    one after another (probe24 on a 2 x 1 LocalCluster: a worker held 9 chunks against a
    cap of 2, peak managed 94-138 MB against queuing's 41-50). Now a completing pass waits
    while as many roots as the cap that came in by such a pass are still in flight there
    (``policy.PASSES``). Twin 2 x 1 over 6 namings of this graph (the store's keys hold a
    uuid): main 3.0-7.0 chunks over queuing's peak, now 0.4-1.5; makespan 0.99-1.01x.
    Fails on main."""
    from tidegate.sim import simulate
    from tidegate.sim.workloads import resample

    w = resample(tmp_path / "in.zarr")  # 2 variables x 731 days x 90 x 180, 30-day chunks
    assert w.sizes(("open_dataset-u", 0)) == CHUNK
    queue, tide = simulate(w.graph, workers=2, threads_per_worker=1, policy=["queue", "tidegate"],
                           sizes=w.sizes)
    assert max(tide.peak_memory_per_worker) <= max(queue.peak_memory_per_worker) + 2 * CHUNK, (
        tide.peak_memory_per_worker, queue.peak_memory_per_worker)
    assert tide.makespan <= 1.05 * queue.makespan, tide.makespan / queue.makespan
