"""Annotations in the twin (dask's SchedulerState on a virtual clock, tidegate's plugin
installed unchanged): a limit of 3 on 100 fused tasks, counted from the trace; priority
annotations changing the order. The twin reads annotations before optimisation and sends
them with the graph, as a client does (sim/model.py ``graph_of``)."""

from __future__ import annotations

import dask
import dask.array as da
import pytest

pytest.importorskip("distributed")

import tidegate  # noqa: E402


def _identity(block):
    return block


def _peak_running(tasks) -> int:
    """Most tasks running at once, from (start, stop) on the virtual clock; a task ending
    at the moment another starts does not overlap it."""
    events = sorted([(t.start, 1) for t in tasks] + [(t.stop, -1) for t in tasks])
    now = peak = 0
    for _, d in events:
        now += d
        peak = max(peak, now)
    return peak


def _pipeline():
    x = da.ones((100, 10), chunks=(1, 10))
    with dask.annotate(tidegate_limit="s3-read"):
        y = x.map_blocks(_identity, dtype=x.dtype)
    return (y + 1).sum()  # default fusion


def test_twin_without_a_limit_runs_more_than_3_at_once():
    r = tidegate.simulate(_pipeline(), workers=4, threads_per_worker=2, policy="tidegate",
                          durations=0.01, validate=True)  # fmt: skip
    loads = [t for t in r.trace.tasks if t.group == "identity"]
    assert len(loads) == 100
    assert _peak_running(loads) > 3


def test_twin_limit_of_3_on_100_tasks():
    r = tidegate.simulate(_pipeline(), workers=4, threads_per_worker=2, policy="tidegate",
                          durations=0.01, validate=True, limits={"s3-read": 3})  # fmt: skip
    loads = [t for t in r.trace.tasks if t.group == "identity"]
    assert len(loads) == 100 and all(t.ok for t in loads)  # the graph finishes
    assert _peak_running(loads) == 3


# -- widely shared inputs: broadcast weights --------------------------------------------
def test_broadcast_weights_move_at_most_once_per_worker():
    # 400 row blocks (80 kB) each multiplied by one 8 MB weight array, on 20 workers. The
    # weights have no inputs and 400 dependents: a shared handle, so the products stay
    # roots (withheld); a worker keeps its copy while it still has products to run, so
    # withholding must not make it drop the copy and fetch it again.
    import collections

    from tidegate.sim.model import build_model

    x = da.random.random((4000, 1000), chunks=(10, 1000))
    w = da.random.random((1000, 1000), chunks=(1000, 1000))
    # The same pipeline without weights (fused: one task per row block), for the peak.
    baseline = tidegate.simulate(build_model((x * 2.0).sum(axis=1), None, durations=0.01),
                                 workers=20, threads_per_worker=2, policy="tidegate")  # fmt: skip
    model = build_model((x @ w).sum(axis=1), None, durations=0.01)
    r = tidegate.simulate(model, workers=20, threads_per_worker=2, policy="tidegate",
                          validate=True)  # fmt: skip
    moves = [t for t in r.trace.transfers if w.name in t.key]
    per_worker = collections.Counter(t.dest for t in moves)
    assert max(per_worker.values()) == 1  # each worker received the weights once
    assert len(per_worker) == 19  # every worker but the one that made them needed them
    # Peak: without weights, plus the weights, plus the row blocks in flight on one worker
    # (ceil(1.1 x 2) = 3 roots, twice when completing consumers). Weights counted as a
    # meeting place pulled roots to their worker: 9.9 MB. One block more: the release of a
    # consumed block reaches the worker on dask's batched stream (up to 5 ms later).
    w_bytes, block = 8_000_000, 80_000
    assert max(r.peak_memory_per_worker) <= (
        max(baseline.peak_memory_per_worker) + w_bytes + (2 * 3 + 1) * block
    )


def _two_groups(annotate_a: bool):
    from dask import delayed

    with dask.annotate(priority=10 if annotate_a else 0):
        a = [delayed(_identity)(i, dask_key_name=f"a-{i}") for i in range(20)]
    b = [delayed(_identity)(i, dask_key_name=f"b-{i}") for i in range(20)]
    return [delayed(sum)(a, dask_key_name="total-a"), delayed(sum)(b, dask_key_name="total-b")]


def test_twin_priority_annotation_runs_its_tasks_first():
    """One worker, one thread: the annotated group's tasks all run before the other's.
    (dask's queuing alone starts two of b's first: it sends the first roots of a new graph
    before it has seen the better ones; the plugin queues them and starts the best.)"""
    policy = "tidegate"

    def order(annotate_a):
        r = tidegate.simulate(_two_groups(annotate_a), workers=1, threads_per_worker=1,
                              policy=policy, durations=0.01, validate=True)  # fmt: skip
        return [g for _, g in sorted((t.start, t.group) for t in r.trace.tasks)]

    assert order(False)[:20] != ["a"] * 20  # dask's order alone does not run a first
    assert order(True)[:20] == ["a"] * 20


def _inc(*args):
    return None


@pytest.mark.parametrize("outgoing", [None, "inf"])
def test_twin_sender_shares_its_outgoing_bandwidth(outgoing):
    # Three workers each need the 1 GB "a" held by a fourth (their own 2 GB input keeps
    # them where they are). Its sender's link is shared: the copies arrive one after
    # another, 1 s apart, unless the sender is not modelled (outgoing_bandwidth=inf).
    import math

    dsk = {"a": (_inc,), **{f"x{i}": (_inc,) for i in range(3)},
           **{f"c{i}": (_inc, "a", f"x{i}") for i in range(3)}}  # fmt: skip
    sizes = {"a": 10**9, **{f"x{i}": 2 * 10**9 for i in range(3)}}
    r = tidegate.simulate(
        dsk, keys=[f"c{i}" for i in range(3)], workers=4, threads_per_worker=1,
        policy="eager", durations=1.0, sizes=lambda k: sizes.get(k, 1), bandwidth="1GB/s",
        outgoing_bandwidth=math.inf if outgoing else None, validate=True,
    )  # fmt: skip
    moves = sorted(r.trace.transfers, key=lambda t: t.stop)
    assert [t.key for t in moves] == ["a"] * 3
    assert len({t.dest for t in moves}) == 3 and len({t.source for t in moves}) == 1
    gaps = [b.stop - a.stop for a, b in zip(moves, moves[1:])]
    if outgoing:
        assert max(gaps) < 0.01  # in parallel: each receiver's own link
    else:
        assert gaps == pytest.approx([1.001, 1.001], abs=1e-3)  # queued at the sender


def _weights_run(broadcast: bool, **kw):
    from tidegate.sim.model import build_model

    x = da.random.random((2000, 1000), chunks=(10, 1000))  # 200 row blocks of 80 kB
    w = da.random.random((1000, 1000), chunks=(1000, 1000))  # 8 MB
    model = build_model((x @ w).sum(axis=1), None, durations=0.01)
    with dask.config.set({"tidegate.distributed.broadcast": broadcast}):
        r = tidegate.simulate(model, workers=12, threads_per_worker=2, policy="tidegate",
                              validate=True, **kw)  # fmt: skip
    made = max(t.stop for t in r.trace.tasks if w.name in t.key)
    moves = [t for t in r.trace.transfers if w.name in t.key]
    return r, made, moves


def test_broadcast_weights_copied_holder_to_holder():
    # The products (x_i @ w) are not roots; each goes where its x_i is. Without the waves
    # every worker fetches w from its one holder at once: 11 copies through one link.
    # 100 MB/s: a copy (80 ms) outlasts a wave's round trip on dask's batched streams.
    r0, made0, plain = _weights_run(False, bandwidth="100MB/s")
    r1, made1, waves = _weights_run(True, bandwidth="100MB/s")
    for moves in (plain, waves):  # each other worker receives w exactly once
        assert sorted(t.dest for t in moves) == sorted({t.dest for t in moves})
        assert len(moves) == 11
    assert len({t.source for t in plain}) == 1
    assert len({t.source for t in waves}) >= 3  # receivers passed it on
    last0 = max(t.stop for t in plain) - made0
    last1 = max(t.stop for t in waves) - made1
    assert last1 < last0 / 2  # the last worker has w in under half the time


def test_broadcast_each_holder_sends_one_copy_at_a_time(monkeypatch):
    # With senders not modelled as a bottleneck (outgoing_bandwidth=inf), overlapping
    # sends from one holder would show: the plugin names one receiver per holder at once.
    # (The tree: policy.BROADCAST_LEARN widens it where senders are free, as here;
    # tests/test_broadcast_learn.py.)
    import math

    from tidegate import policy

    monkeypatch.setattr(policy, "BROADCAST_LEARN", 0)

    _, _, plain = _weights_run(False, outgoing_bandwidth=math.inf)
    _, _, waves = _weights_run(True, outgoing_bandwidth=math.inf)

    def most_at_once(moves):
        peak = 0
        for src in {t.source for t in moves}:
            peak = max(peak, _peak_running([t for t in moves if t.source == src]))
        return peak

    assert most_at_once(plain) > 1
    assert most_at_once(waves) == 1
