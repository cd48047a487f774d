"""The plans' fast walks (cpu40b, session 40: policy._meeting_plan_fast, _chain_fast,
_further_part) give the plans the old walks gave (tests/plan_reference.py: session 39's
walks, moved out of src/ with the ``PLAN_FAST`` switch by tidy41, session 41), on every task
of the twin's seed workloads and of small graphs with the rarer kinds (handles inside a chain
and past it, wide fan-ins, gathers, pairs, deep halos, constants), with kept chains shared
across the roots as the plugin keeps them, by identity (``unique``) and by ``==`` (the
core's)."""

from __future__ import annotations

import pytest
from dask.utils import key_split

import plan_reference
from tidegate import policy
from tidegate.sim.workloads import WORKLOADS, build


class Node:
    """A task as the plugin sees one: dependents / dependencies sets, a group, equal by key
    (as dask's TaskState)."""

    __slots__ = ("key", "dependents", "dependencies", "group", "data", "_hash")

    def __init__(self, key, group, data=False):
        self.key = key
        self.group = group
        self.data = data
        self.dependents = set()
        self.dependencies = set()
        self._hash = hash(key)

    def __hash__(self):
        return self._hash

    def __eq__(self, other):
        return isinstance(other, Node) and self.key == other.key

    def __repr__(self):
        return f"Node({self.key!r})"


def _graph(edges: dict, constants=()) -> list:
    """Nodes of ``{key: [input keys]}``, in the dict's order; groups by key_split."""
    groups: dict = {}
    nodes = {}
    for k in edges:
        name = key_split(k)
        nodes[k] = Node(k, groups.setdefault(name, object()), k in constants)
    for k, ins in edges.items():
        for d in ins:
            nodes[k].dependencies.add(nodes[d])
            nodes[d].dependents.add(nodes[k])
    return list(nodes.values())


def _workload_graph(name, store):
    m = build(name, 12, 1e6, store=store).model()
    return _graph({k: list(node.dependencies) for k, node in m.dsk.items()})


def _handmade() -> list:
    edges: dict = {"store": []}
    for i in range(10):  # a handle read by 10 loads: a handle inside the chain (inner)
        edges[f"load-{i}"] = ["store"]
        edges[f"sel-{i}"] = [f"load-{i}"]
    edges["path"] = []
    edges["store2"] = ["path"]  # a handle whose one input is a constant (its path)
    for i in range(12):
        edges[f"zload-{i}"] = ["store2"]
        edges[f"zsel-{i}"] = [f"zload-{i}"]
    for i in range(0, 12, 2):
        edges[f"zpair-{i}"] = [f"zsel-{i}", f"zsel-{i + 1}"]
    for i in range(0, 10, 2):  # pairs of one group, then combined with the other side
        edges[f"pair-{i}"] = [f"sel-{i}", f"sel-{i + 1}"]
    edges["big"] = []
    for i in range(20):  # loads of a handle read by 20 (past fanout)
        edges[f"x-{i}"] = ["big"]
    for i in range(20):  # a wide fan-in of 20 roots
        edges[f"w-{i}"] = []
    edges["wide"] = [f"w-{i}" for i in range(20)]
    for i in range(0, 20, 2):  # the same loads' selections paired: a handle past the chain
        edges[f"xs-{i}"] = [f"x-{i}"]
        edges[f"xs-{i + 1}"] = [f"x-{i + 1}"]
        edges[f"xpair-{i}"] = [f"xs-{i}", f"xs-{i + 1}"]
    for i in range(5):  # two arrays side by side (a pair), and a constant read beside
        edges[f"y-{i}"] = []
        edges[f"ysel-{i}"] = [f"y-{i}"]
        edges[f"add-{i}"] = [f"pair-{2 * i}", f"ysel-{i}"]
        edges[f"scale-{i}"] = [f"y-{i}", "const"]
    edges["const"] = []
    for i in range(6):  # a final gather of one group's pieces
        edges[f"p-{i}"] = []
        edges[f"q-{i}"] = [f"p-{i}"]
    edges["finalize"] = [f"q-{i}" for i in range(6)]
    for i in range(8):  # a rolling mean's chunk: meets its own data, then its neighbours'
        edges[f"u-{i}"] = []
        edges[f"inv-{i}"] = [f"u-{i}"]
        edges[f"mask-{i}"] = [f"u-{i}", f"inv-{i}"]
        edges[f"c1-{i}"] = [f"inv-{i}"]
        edges[f"c2-{i}"] = [f"c1-{i}"]
        edges[f"c3-{i}"] = [f"c2-{i}"]
        edges[f"c4-{i}"] = [f"c3-{i}"]
    for i in range(7):
        edges[f"merge-{i}"] = [f"c4-{i}", f"c4-{i + 1}"]
        edges[f"sum-{i}"] = [f"merge-{i}"]
    return _graph(edges, constants={"const", "path"})


GRAPHS = [(f"{w}-{s}", w, s) for w in WORKLOADS for s in (False, True)]


def _plans(nodes, walks, unique: bool, halo):
    """Every node's meeting plan and further plan by ``walks`` (policy, or plan_reference:
    the old walks), kept chains shared as the plugin keeps them, and the chains dict as
    left."""
    chains: dict = {}
    out = []
    deps = lambda t: t.dependents  # noqa: E731
    ins = lambda t: t.dependencies  # noqa: E731
    group = lambda t: t.group  # noqa: E731
    constant = lambda t: t.data  # noqa: E731
    for t in nodes:
        plan = walks.meeting_plan(t, deps, ins, constant=constant, chains=chains,
                                  group=group, halo_depth=halo, unique=unique)
        further = walks.further_plan(plan.meetings, deps, ins, constant=constant,
                                     chains=chains, unique=unique)
        alone = walks.meeting_plan(t, deps, ins, constant=constant, group=group,
                                   unique=unique)  # (no kept chains)
        out.append((t, plan, further, alone))
    return out, {k: v[1] for k, v in chains.items()}


def _same(nodes, halo):
    base, base_chains = _plans(nodes, plan_reference, False, halo)
    kinds = set()
    for unique in (False, True):
        new, new_chains = _plans(nodes, policy, unique, halo)
        for (t, plan, further, alone), (_, plan2, further2, alone2) in zip(base, new):
            assert plan2 == plan, t
            assert [type(x) for x in plan2] == [type(x) for x in plan], t
            assert further2 == further, t
            assert alone2 == alone, t
        assert new_chains == base_chains
    for t, plan, further, _ in base:
        kinds.update(k for k in ("further", "pair", "gather", "deep", "spread")
                     if getattr(plan, k))
        if plan.wide is not None:
            kinds.add("wide")
        for inputs in plan.inputs:
            for tops, end, handle, inner, others, bar in inputs:
                kinds.update(k for k, v in (("handle", handle is not None),
                                            ("inner", inner is not None),
                                            ("shared", others), ("constant", not bar))
                             if v)
        if further:
            kinds.add("further plan")
    return kinds


@pytest.mark.parametrize("label,name,store", GRAPHS, ids=[g[0] for g in GRAPHS])
def test_fast_plans_are_the_plans_on_the_seed_workloads(label, name, store):
    nodes = _workload_graph(name, store)
    for halo in (None, 8):
        _same(nodes, halo)


def test_fast_plans_are_the_plans_on_the_rarer_kinds():
    nodes = _handmade()
    kinds = _same(nodes, None) | _same(nodes, 8)
    # (the graphs reach every kind the fast walks find in fewer steps: a mutant that gets
    # one of them wrong fails above)
    assert kinds >= {"further", "pair", "gather", "deep", "wide", "handle", "inner",
                     "shared", "constant", "further plan"}, kinds


def test_a_wrong_fast_walk_fails(monkeypatch):
    """The comparison catches a mutant: a chain walk ignoring handles (each taken for a
    fan-out, as a too-coarse test would)."""
    def mutant(t, dependents, dependencies, depth, fanout, constant=None):
        tops, end, handle, inner = plan_reference._chain(t, dependents, dependencies,
                                                         depth, fanout, constant)
        return tops, end, None, inner

    monkeypatch.setattr(policy, "_chain_fast", mutant)
    with pytest.raises(AssertionError):
        _same(_handmade(), None)


def _shape(plan, name):
    """A plan with each task replaced by its name's prefix (what a key of group names and
    counts could know): equal shapes are what a plan shared between roots would need."""
    def n(t):
        return None if t is None else key_split(name(t))

    return (plan.spread, plan.further, plan.pair, plan.gather, plan.deep, n(plan.wide),
            tuple((n(m), n(v)) for m, v in plan.meetings),
            tuple(tuple((tuple(map(n, tops)), n(end), n(handle), inner, others, bar)
                        for tops, end, handle, inner, others, bar in inputs)
                  for inputs in plan.inputs))


def test_a_coarse_shape_key_would_share_wrong_plans():
    """Why the plans are not shared between roots of one shape (cpu40b-findings.txt): a
    key cheaper than the walk (a root's group and its count of readers) puts rechunk-add's
    last u-load of an odd step count, whose merge reads its one split (no meeting there:
    the walk goes on to the add), with the others, whose merges pair two loads."""
    nodes = _workload_graph("rechunk-add", False)  # 12 steps: even
    odd = _graph({k: list(node.dependencies)
                  for k, node in build("rechunk-add", 5, 1e6, store=False).model().dsk.items()})
    shapes: dict = {}
    deps = lambda t: t.dependents  # noqa: E731
    ins = lambda t: t.dependencies  # noqa: E731
    for graph in (nodes, odd):
        for t in graph:
            if t.dependencies and all(len(d.dependents) > policy.MEETING_FANOUT or
                                      not d.dependencies for d in t.dependencies) \
                    and key_split(t.key).startswith("open"):  # (the loads: roots)
                plan = policy.meeting_plan(t, deps, ins, group=lambda t: t.group)
                key = (key_split(t.key), len(t.dependents))
                shapes.setdefault(key, set()).add(_shape(plan, lambda t: t.key))
    assert any(len(s) > 1 for s in shapes.values()), shapes
