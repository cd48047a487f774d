"""policy.BESIDE_LEAST: on workers of two or three threads a spread root passes the count
beside a running root only where its worker holds least (sten49b-findings.txt)."""

import dask.array as da
import pytest

from test_stencil import MEASURED, REDUCED, _double


def _runs(workers: int, threads: int, lag: float = 0.002) -> list:
    """(queuing's peak, tidegate's peak, queuing's makespan, tidegate's) per run of the test
    stencil (test_stencil's model) over five namings x two seeds."""
    from _namings import NAMINGS, renamed

    from tidegate.sim import simulate
    from tidegate.sim.model import build_model

    a = da.random.RandomState(2).random((6000, 6000), chunks=1000)
    x = a.map_overlap(_double, depth=1, boundary="none", name="stencil-a").std(axis=0)
    model = build_model(x, sizes=REDUCED, durations=MEASURED, finalize=True)
    out = []
    for salt in NAMINGS:
        for seed in (0, 1):
            queue, tide = simulate(renamed(model, salt), workers=workers,
                                   threads_per_worker=threads, bandwidth=200e6,
                                   outgoing_bandwidth=200e6, latency=0.001, thread_lag=lag,
                                   seed=seed, policy=["queue", "tidegate"],
                                   record_memory=False, processes=1)  # fmt: skip
            out.append((max(queue.peak_memory_per_worker), max(tide.peak_memory_per_worker),
                        queue.makespan, tide.makespan))
    return out


def test_a_block_goes_beside_a_load_on_two_threads_only_where_its_worker_holds_least(
        monkeypatch):
    """3 x 2 at 2 ms: without the rule one run's worker took a block beside a running load
    past a full count while it held more than the others: 1.11x queuing's peak (the bench
    model: 16 of 60 runs over, 8 x 2 2 of 60). With it every run's peak is at most
    queuing's (+1 MB), at no more than 1% summed makespan (this model: +0.2%). On
    distributed < 2025.5 (roots offered in priority order: another start) no run is over
    without it, and the rule costs 5% summed there: held to its peaks and to that."""
    pytest.importorskip("distributed")
    from tidegate import policy
    from tidegate.distributed import install

    monkeypatch.setattr(policy, "BESIDE_LEAST", 0)
    before = _runs(3, 2)
    if install._starts_by_walk():
        assert any(tp > qp + 1e6 for qp, tp, _, _ in before)  # (the case the rule is for)
    monkeypatch.setattr(policy, "BESIDE_LEAST", 1)
    after = _runs(3, 2)
    for qp, tp, _, _ in after:
        assert tp <= qp + 1e6, (tp / qp)
    # (distributed < 2025.5: the rule's cost, 3.159 -> 3.317 s summed, +5.0%, is held)
    most = 1.01 if install._starts_by_walk() else 1.06
    assert sum(r[3] for r in after) <= most * sum(r[3] for r in before)
