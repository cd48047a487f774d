"""The harness that checks the twin against a real LocalCluster (numbers: bench/sim_fidelity.py).

No timing of the real cluster is asserted: only that both bodies ran the same graph and that
the instruments measure what they claim.
"""

from __future__ import annotations

import pytest

pytest.importorskip("distributed")

from tidegate.sim.fidelity import GRAPHS, run_real, run_twin  # noqa: E402


@pytest.mark.parametrize("policy", ["queue", "tidegate"])
def test_real_and_twin_run_the_same_graph(policy):
    graph = GRAPHS["stack-sum"](steps=6, chunk=10**6, load=0.02, compute=0.01, store=0.02)
    real = run_real(graph, policy, bandwidth=1e9)
    twin = run_twin(graph, policy, bandwidth=1e9, validate=True)
    assert len(real.peak_memory_per_worker) == len(twin.peak_memory_per_worker) == 4
    # Two loads meet in a sum: whatever the schedule, some worker held both.
    assert max(real.peak_memory_per_worker) >= 2 * 10**6
    assert max(twin.peak_memory_per_worker) >= 2 * 10**6
    # Bytes moved are whole chunks (the stores' outputs are empty).
    assert real.bytes_transferred % 10**6 == 0 and twin.bytes_transferred % 10**6 == 0
    assert {t.key for t in twin.trace.tasks} == {str(k) for k in graph.dsk}
    assert 0 <= real.loop_lag < 0.5  # measured off the workers' own transitions
    assert len(real.lags) == len(graph.dsk)  # one per task run
    # every task's compute-task and task-finished hop, on the worker that ran it
    assert len(real.to_worker) == len(real.to_scheduler) == len(graph.dsk)
    assert all(0 <= x < 5 for x in real.to_worker + real.to_scheduler)


def test_real_transfers_are_slowed_to_the_bandwidth():
    """One remote 50 MB input at 100 MB/s: the real run takes at least the transfer."""
    from tidegate.sim.fidelity import Graph, sleep_blob

    dsk = {"a": (sleep_blob, 0.0, 50 * 10**6), "b": (sleep_blob, 0.0, 50 * 10**6),
           "c": (sleep_blob, 0.0, 1, "a", "b")}
    g = Graph("pair", dsk, ["c"])
    real = run_real(g, "eager", workers=2, threads=1, bandwidth=100e6)
    twin = run_twin(g, "eager", workers=2, threads=1, bandwidth=100e6)
    if real.bytes_transferred:  # a and b may land on one worker in the real run
        assert real.bytes_transferred == 50 * 10**6
        assert real.makespan >= 0.5
    assert twin.bytes_transferred == 50 * 10**6 and twin.makespan >= 0.5
