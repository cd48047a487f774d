"""policy.SPREAD_RING (sten46): a stencil block reserves only the roots its own overlap
lacks (its ring of neighbours), found by policy.central_meetings from the graph alone."""
from __future__ import annotations

import dask.array as da
import numpy as np
from dask.core import get_dependencies

from tidegate import policy
from tidegate.policy import central_meetings, meeting_partners, meeting_plan


def _stencil_graph(side=6, ndim=2):
    a = da.random.RandomState(2).random((side,) * ndim, chunks=1)
    x = a.map_overlap(lambda b: b, depth=1, boundary="none", dtype=a.dtype)
    g = dict(x.__dask_graph__())
    deps = {k: set(get_dependencies(g, k)) for k in g}
    dependents = {k: set() for k in g}
    for k, ds in deps.items():
        for d in ds:
            dependents[d].add(k)
    blocks = {k[1:]: k for k in g if k[0] == a.name}
    return deps, dependents, blocks


def _lacks(task, deps, dependents, ring):
    plan = meeting_plan(task, lambda t: dependents[t], lambda t: deps[t])
    assert plan.spread
    lacks: set = set()
    old = policy.SPREAD_RING
    policy.SPREAD_RING = ring
    try:
        meeting_partners(task, lambda t: dependents[t], lambda t: deps[t], lambda t: (),
                         lacks=lacks, complete=set(), plan=plan)
    finally:
        policy.SPREAD_RING = old
    return plan, lacks


def _block_of(t, deps, blocks):
    """The block a lacked root reads (itself, if a block; a slice reads one)."""
    index = {v: k for k, v in blocks.items()}
    while t not in index:
        (t,) = deps[t]
    return index[t]


def test_a_blocks_central_meeting_is_its_own_overlap_in_the_grid_at_edges_and_corners():
    deps, dependents, blocks = _stencil_graph()
    for at in [(2, 3), (0, 2), (0, 0), (5, 5), (3, 0)]:
        b = blocks[at]
        plan, lacks = _lacks(b, deps, dependents, 3)
        found = {_block_of(r, deps, blocks) for r in lacks}
        ring = {(at[0] + i, at[1] + j) for i in (-1, 0, 1) for j in (-1, 0, 1)
                if (i, j) != (0, 0) and 0 <= at[0] + i < 6 and 0 <= at[1] + j < 6}
        assert found == ring, (at, sorted(found))
        # (off: the second ring's too; bit 1 alone: the ring's, and the second ring's
        # lacked as blocks, read by fewer than SHARED_FANOUT tasks at the grid's edge)
        _, every = _lacks(b, deps, dependents, 0)
        assert {_block_of(r, deps, blocks) for r in every} > ring
        assert lacks <= _lacks(b, deps, dependents, 1)[1] <= every
        assert len(central_meetings(plan.inputs, b)) == 1 < len(plan.inputs)
