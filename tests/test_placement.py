"""Shared inputs (issue 9, part 2): neighbours meet on one worker, consumers follow their own
data, and inputs read by many tasks (grids, broadcast weights, store handles) pull nothing.

The pure decisions are tested directly; the twin runs the seed's vorticity shape (two loads
per step meeting three shared grid chains) and its virtual numbers are asserted exactly
against dask's queuing in the same run.
"""

from __future__ import annotations

import math

import pytest

from tidegate.books import Books
from tidegate.policy import MEETING_FANOUT, Policy, meeting_partners, place_consumer


def _graph(steps):
    """Per step u-t, v-t -> vort-t, which also reads grid (shared by every step)."""
    deps = {"grid": []}
    for t in range(steps):
        deps[f"u-{t}"] = []
        deps[f"v-{t}"] = []
        deps[f"vort-{t}"] = [f"u-{t}", f"v-{t}", "grid"]
    dependents: dict = {k: [] for k in deps}
    for k, ds in deps.items():
        for d in ds:
            dependents[d].append(k)
    return deps, dependents


def test_a_grid_read_by_every_step_is_no_partner():
    deps, dependents = _graph(MEETING_FANOUT + 1)
    where = {"grid": ["w0"], "v-3": ["w1"]}
    scores = meeting_partners("u-3", dependents.__getitem__, deps.__getitem__,
                              lambda t: where.get(t, []))  # fmt: skip
    assert scores == {"w1": 1}  # v-3's worker only; before: {"w0": 1, "w1": 1}
    del where["v-3"]
    assert meeting_partners("u-3", dependents.__getitem__, deps.__getitem__,
                            lambda t: where.get(t, [])) == {}  # fmt: skip


def test_a_grid_read_by_few_is_still_a_meeting_place():
    deps, dependents = _graph(3)
    where = {"grid": ["w0"]}
    assert meeting_partners("u-1", dependents.__getitem__, deps.__getitem__,
                            lambda t: where.get(t, [])) == {"w0": 1}  # fmt: skip


def test_place_consumer_follows_the_bytes_not_dasks_balance():
    assert place_consumer({}, "a") == "a"  # nothing local: dask's choice
    assert place_consumer({"a": 5, "b": 5}, "b") == "b"  # a tie: dask balances
    assert place_consumer({"a": 10, "b": 5}, "b") == "a"
    assert place_consumer({"a": 10, "c": 10}, "b") == "a"  # ties: the first by id


def test_a_consumer_processing_where_its_inputs_are_frees_their_slots():
    books = Books(Policy(saturation=1.0))
    books.add_worker("w", 2, math.inf)
    for r in ("u", "v"):
        books.on_run(r, "w", True, "g", 10.0)
        books.on_finished(r, 10.0, (), False, True)
    books.on_run("c", "w", False, "c", math.nan)  # the consumer: processing, not idle
    assert books.workers["w"].roots_in_flight == 2
    assert not books.admits("w", "x", 10.0, "g", False)
    books.on_consuming("c", ["u", "v"], "s1")
    assert books.workers["w"].roots_in_flight == 0
    assert books.admits("w", "x", 10.0, "g", False)
    books.on_finished("c", 1.0, ["u", "v"], False, True)  # nothing left to count
    books.validate()
    assert [e[1:3] for e in books.story("u")] == [("landed", "consuming")]


# -- the twin ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def vorticity():
    pytest.importorskip("distributed")
    from tidegate.sim import simulate
    from tidegate.sim.workloads import build

    w = build("vorticity", 60, 1e6)
    return {r.policy: r for r in simulate(
        w.graph, keys=w.keys, sizes=w.sizes, durations=w.durations, workers=4,
        threads_per_worker=2, policy=["queue", "tidegate"], validate=True,
    )}  # fmt: skip


def _where(r):
    return {t.key: t.worker for t in r.trace.tasks}


def test_twin_vorticity_loads_and_their_consumer_meet(vorticity):
    where = _where(vorticity["tidegate"])
    for t in range(60):
        assert where[str(("open-u", t))] == where[str(("open-v", t))] \
            == where[str(("vorticity-store", t))], t  # fmt: skip
    moved = [x.key for x in vorticity["tidegate"].trace.transfers if "open-" in x.key]
    assert moved == []  # only the grids (one copy per worker) and the handles travel
    queue = _where(vorticity["queue"])
    assert sum(queue[str(("open-u", t))] != queue[str(("open-v", t))] for t in range(60)) > 20


def test_twin_vorticity_holds_and_moves_less_than_queuing(vorticity):
    q, t = vorticity["queue"], vorticity["tidegate"]
    # Seen under PYTHONHASHSEED 1-3 (set orders differ): tidegate 8-11 MB and 9 MB moved
    # (the grids and handles), queue 12-13 MB and 70-72 MB.
    assert max(t.peak_memory_per_worker) <= 0.9 * max(q.peak_memory_per_worker)
    assert t.bytes_transferred <= 0.2 * q.bytes_transferred
    assert t.makespan <= 1.05 * q.makespan
