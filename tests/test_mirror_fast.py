"""The owed roots' mirror path walked with fewer steps (cpu41, session 41:
policy.mirrored_inputs, policy.mirror_holds) gives the answers session 40's walks give
(tests/plan_reference.py, where they moved with the MIRROR_FAST switch), on every task of
the twin's seed workloads (store and not) and of a small graph with the rarer kinds, with
kept chains as the plugin keeps them (left equal too), by identity (``unique``, the
plugin's) and by ``==`` (unique False)."""

from __future__ import annotations

import pytest

import plan_reference as reference
from test_plan_fast import _graph, _workload_graph  # (the plugin's view of a task: Node)
from tidegate import policy
from tidegate.sim.workloads import WORKLOADS


def _rarer() -> list:
    """A tree reduction's groups of 4 (the mirror's case), one whose loads also meet a
    second input read by few (no mirror), one ending in a final gather, one under a
    handle, pairs, a wide fan-in and a constant."""
    edges: dict = {"const": [], "store": []}
    for g in range(4):  # groups of 4 under one next-level combine (further meetings)
        for i in range(4):
            edges[f"load-{g}-{i}"] = []
            edges[f"sel-{g}-{i}"] = [f"load-{g}-{i}"]
            edges[f"sub-{g}-{i}"] = [f"load-{g}-{i}", "mean"]
        edges[f"comb-{g}"] = [f"sel-{g}-{i}" for i in range(4)]
    edges["mean"] = [f"comb-{g}" for g in range(4)]
    for g in range(3):  # groups of 4 whose loads also meet a second array read by one
        for i in range(4):
            edges[f"x-{g}-{i}"] = ["store"]
            edges[f"y-{g}-{i}"] = []
            edges[f"xy-{g}-{i}"] = [f"x-{g}-{i}", f"y-{g}-{i}"]
        edges[f"xc-{g}"] = [f"x-{g}-{i}" for i in range(4)]
    for i in range(6):  # a final gather of one group's pieces
        edges[f"p-{i}"] = []
        edges[f"q-{i}"] = [f"p-{i}"]
    edges["finalize"] = [f"q-{i}" for i in range(6)]
    for i in range(20):  # a wide fan-in, and a constant beside
        edges[f"w-{i}"] = []
        edges[f"ws-{i}"] = [f"w-{i}", "const"]
    edges["wide"] = [f"ws-{i}" for i in range(20)]
    for i in range(0, 8, 2):  # pairs, their output combined once more
        edges[f"a-{i}"] = []
        edges[f"a-{i + 1}"] = []
        edges[f"pair-{i}"] = [f"a-{i}", f"a-{i + 1}"]
    edges["pairs"] = [f"pair-{i}" for i in range(0, 8, 2)]
    return _graph(edges, constants={"const"})


GRAPHS = [(f"{w}-{s}", w, s) for w in WORKLOADS for s in (False, True)]
deps = lambda t: t.dependents  # noqa: E731
ins = lambda t: t.dependencies  # noqa: E731
group = lambda t: t.group  # noqa: E731
constant = lambda t: t.data  # noqa: E731


def _asks(nodes):
    """Every (task, meeting, via) a mirror may ask of: each task's own meetings, each
    other input of them as a via, and each mirror's listed tasks with their input."""
    for t in nodes:
        meetings = policy._meetings(t, deps, ins, 4, policy.MEETING_FANOUT)
        for m, v in meetings:
            yield t, m, v
            for u in m.dependencies:
                if u is not v:
                    yield t, m, u
        for m, _ in meetings[:1]:
            for t2 in nodes[:3]:
                yield t2, m, next(iter(m.dependencies))


def _same(nodes):
    """Old and fast answer alike; the kinds of answer reached."""
    kinds = set()
    chains_old: dict = {}
    chains_new: dict = {}
    for t in nodes:
        plan = policy.meeting_plan(t, deps, ins, constant=constant, chains=dict(chains_old),
                                   group=group, unique=True)
        for kept in (True, False):
            old = reference.mirrored_inputs(plan, deps, ins, constant=constant,
                                         chains=chains_old if kept else None)
            new = policy.mirrored_inputs(plan, deps, ins, constant=constant,
                                               chains=chains_new if kept else None)
            assert new == old, t
            assert chains_new == chains_old, t
        if old is not None:
            kinds.add("mirrored")
            meeting, out = old
            for c, entries, via in out.values():
                if entries is None:
                    kinds.add("two chains")
                    continue
                for unique in (False, True):
                    assert policy.mirror_holds(c, meeting, via, deps, ins, group=group,
                                                     unique=unique) == \
                        reference.mirror_holds(c, meeting, via, deps, ins, group=group), c
    for t, m, v in _asks(nodes):
        old = reference.mirror_holds(t, m, v, deps, ins, group=group)
        for unique in (False, True):
            assert policy.mirror_holds(t, m, v, deps, ins, group=group,
                                             unique=unique) == old, (t, m, v)
        assert policy.mirror_holds(t, m, v, deps, ins, group=None) == \
            reference.mirror_holds(t, m, v, deps, ins, group=None), (t, m, v)
        kinds.add("none" if old is None else f"holds further={old[0]}")
    return kinds


@pytest.mark.parametrize("label,name,store", GRAPHS, ids=[g[0] for g in GRAPHS])
def test_fast_mirror_is_the_mirror_on_the_seed_workloads(label, name, store):
    assert "none" in _same(_workload_graph(name, store))


def test_fast_mirror_is_the_mirror_on_the_rarer_kinds():
    kinds = _same(_rarer())
    assert kinds >= {"mirrored", "none", "holds further=True", "holds further=False"}, kinds


def test_the_mirror_holds_for_the_tree_reductions_loads():
    """The mirror's case is reached on anomaly's groups of 4 (a proof that holds)."""
    nodes = _workload_graph("anomaly", False)
    assert {"mirrored", "holds further=True"} <= _same(nodes)


@pytest.mark.parametrize("mutant", ["gather", "further"])
def test_a_wrong_fast_mirror_fails(monkeypatch, mutant):
    """The comparison catches a mutant: gathers never asked, or further never found."""
    fast = policy.mirror_holds

    def wrong(*a, **k):
        if mutant == "gather":
            return fast(*a, **dict(k, group=None))
        out = fast(*a, **k)
        return out if out is None else (False, out[1])

    monkeypatch.setattr(policy, "mirror_holds", wrong)
    with pytest.raises(AssertionError):
        _same(_rarer())
