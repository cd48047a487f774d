"""policy.SPLIT_THREADS and policy.COMBINE_WHOLE (seed46, issue 9): the twin's seed anomaly of
four loads (a zarr handle read by four 32 MB loads, a chunk-mean of each, one mean of the
four read back by a store of each load).

SPLIT_THREADS: on 2 x 2 two loads wait for their partners' busy worker; the idle-worker
split started one of them on the idle worker, the other waited beside a free thread there
until that worker's load and chunk-mean ended. COMBINE_WHOLE: on 5 x 4 / 8 x 2 / 3 x 2 the
mean of all four chunk-means went to a worker holding none of them (COMBINE_BY_HELD), four
means copied in one after the other and its result sent back to four workers."""
from __future__ import annotations

import math

import pytest

from tidegate import policy
from tidegate.policy import combines_whole, split_takes

from test_constant_handles import _four_loads_under_a_mean  # (the twin's four-load graph)


def test_an_idle_worker_takes_roots_while_a_thread_is_free_within_its_share(monkeypatch):
    monkeypatch.setattr(policy, "SPLIT_THREADS", 1)
    assert split_takes(1, 2, 1, 4, 2)  # a thread free, 1 of a share of 2
    assert not split_takes(2, 2, 1, 4, 2)  # every thread busy
    assert not split_takes(1, 4, 2, 4, 2)  # its share held (ceil(4 / 2))
    assert split_takes(1, 4, 2, 12, 2)  # a share of 6
    monkeypatch.setattr(policy, "SPLIT_THREADS", 0)
    assert not split_takes(1, 2, 1, 4, 2)


def test_a_combine_of_its_group_whole(monkeypatch):
    monkeypatch.setattr(policy, "COMBINE_WHOLE", 1)
    assert combines_whole(4, 4)  # the seed anomaly's one mean of four chunk-means
    assert not combines_whole(4, 12)  # a tree's partial of 4 of 12
    assert not combines_whole(3, 0)
    monkeypatch.setattr(policy, "COMBINE_WHOLE", 0)
    assert not combines_whole(4, 4)


def _run(workers, threads, outgoing):
    from tidegate.sim import simulate

    dsk, durations, sizes = _four_loads_under_a_mean()
    q, t = simulate(dsk, keys=["finalize"], workers=workers, threads_per_worker=threads,
                    policy=["queue", "tidegate"], durations=lambda k: durations.get(k, 0.0),
                    sizes=lambda k: sizes.get(k, 16), thread_lag=0.01, seed=0, processes=1,
                    bandwidth=200e6, outgoing_bandwidth=outgoing, latency=0.001,
                    record_memory=False)  # fmt: skip
    loads = [s for s in t.trace.tasks if s.group.startswith("from-zarr")]
    agg = [s for s in t.trace.tasks if s.group.startswith("mean_agg")]
    return q, t, loads, agg[0]


def test_loads_split_onto_an_idle_worker_fill_its_threads(monkeypatch):
    monkeypatch.setattr(policy, "SPLIT_THREADS", 0)
    q, t, loads, _ = _run(2, 2, 200e6)
    first_end = min(s.stop for s in loads)
    assert sum(s.start > first_end for s in loads) == 1  # (the case: one load waited)
    assert t.makespan > 1.1 * q.makespan
    monkeypatch.setattr(policy, "SPLIT_THREADS", 1)
    q, t, loads, _ = _run(2, 2, 200e6)
    first_end = min(s.stop for s in loads)
    assert all(s.start < first_end for s in loads)
    assert sorted(sum(s.worker == w for s in loads) for w in {s.worker for s in loads}) == [2, 2]
    assert t.makespan <= q.makespan
    assert max(t.peak_memory_per_worker) <= max(q.peak_memory_per_worker)


@pytest.mark.parametrize("shape,outgoing", [((5, 4), math.inf), ((8, 2), math.inf),
                                            ((3, 2), 200e6)])
def test_a_whole_reduction_s_combine_stays_with_an_input(monkeypatch, shape, outgoing):
    monkeypatch.setattr(policy, "COMBINE_WHOLE", 0)
    q, t, loads, agg = _run(*shape, outgoing)
    # (the case: moved off the holder of most loads, to one holding fewer or none)
    here = sum(s.worker == agg.worker for s in loads)
    assert here < max(sum(s.worker == w for s in loads) for w in {s.worker for s in loads})
    assert t.makespan > 1.1 * q.makespan
    monkeypatch.setattr(policy, "COMBINE_WHOLE", 1)
    q, t, loads, agg = _run(*shape, outgoing)
    here = sum(s.worker == agg.worker for s in loads)
    assert here == max(sum(s.worker == w for s in loads) for w in {s.worker for s in loads})
    assert t.makespan <= q.makespan
    assert max(t.peak_memory_per_worker) <= max(q.peak_memory_per_worker)
