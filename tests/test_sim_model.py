"""The twin's default durations follow what a task does to its bytes: a slice costs nothing
of its input, a task that computes on its inputs costs at least its largest input."""

from __future__ import annotations

import dask.array as da
import numpy as np
import pytest

from tidegate.sim.model import COMPUTE_RATE, TASK_OVERHEAD, build_model
from tidegate.sim.workloads import NoData, build

BLOCK = 1000 * 1000 * 8


def inc(*args):
    return None


def _by_group(model, prefix):
    return {k: model.durations[k] for k in model.dsk
            if type(k) is tuple and k[0].startswith(prefix + "-")}


def test_stencil_halo_slices_cost_nothing_and_the_overlap_its_block():
    """map_overlap: each halo is a getitem of one row (or corner) of a block, a numpy view;
    the overlap task concatenates the block with its halos and computes on it. Main timed
    each halo by its whole block (9 ms) and the overlap by its small output (1 ms)."""
    a = da.from_array(NoData((4000, 4000)), chunks=1000, name="open")
    x = a.map_overlap(np.negative, depth=1, boundary="none").std(axis=0)
    m = build_model(x, sizes={"overlap-var": 24402, "var": 24402})
    halos = {k: d for k, d in _by_group(m, "getitem").items() if type(m.dsk[k]).__name__ == "Task"}
    overlaps = _by_group(m, "overlap-var")
    assert len(halos) > 40 and len(overlaps) == 16
    assert set(halos.values()) == {TASK_OVERHEAD}
    assert {m.sizes[k] for k in halos} == {8, 1000 * 8}  # corners and rows, not unknown
    assert m.unknown == 0
    for d in overlaps.values():
        assert d >= TASK_OVERHEAD + BLOCK / COMPUTE_RATE
    assert max(halos.values()) * 5 < min(overlaps.values())


def test_a_split_costs_its_output_when_dask_copies_it():
    """A rechunk's split (dask's chunk.getitem copies a selection of at most half its
    input) costs its half chunk, sized from the chunk's shape (main: an unknown size,
    timed by its whole input); a larger selection is a view."""
    m = build("rechunk-add", 4, 8e6, store=False).model()
    splits = _by_group(m, "rechunk-split")
    assert len(splits) == 16  # 2 arrays x 4 steps x 2 halves
    assert {m.sizes[k] for k in splits} == {BLOCK // 2}
    assert set(splits.values()) == {TASK_OVERHEAD + BLOCK // 2 / COMPUTE_RATE}
    assert m.unknown == 0
    a = da.from_array(NoData((2800, 1000)), chunks=1000, name="open")
    m = build_model(a.rechunk((1400, 1000)) + 1)  # the middle chunk split at row 400
    got = {m.sizes[k]: d for k, d in _by_group(m, "rechunk-split").items()}
    row = 1000 * 8
    assert got == {400 * row: pytest.approx(TASK_OVERHEAD + 400 * row / COMPUTE_RATE),
                   600 * row: TASK_OVERHEAD}  # over half its chunk: a view


def test_a_task_reads_its_largest_input_however_small_its_output():
    dsk = {"x": (inc,), "y": (inc, "x"), "z": (inc, "x", "y")}
    m = build_model(dsk, keys=["z"], sizes={"x": BLOCK, "y": 8, "z": 8})
    assert m.durations["y"] == pytest.approx(TASK_OVERHEAD + BLOCK / COMPUTE_RATE)
    assert m.durations["z"] == pytest.approx(TASK_OVERHEAD + BLOCK / COMPUTE_RATE)


def test_a_store_of_an_edge_block_costs_its_own_bytes():
    """A fused store of a block smaller than the layer's largest (rechunk-add's one-row
    edge) is timed by its own block's bytes. Main timed every store by the largest block
    of its layers: the twin's rechunk-add (side 4873, rows 2436 + 2436 + 1) held a thread
    2.09 s for each 78 kB edge store, a third of its stores."""
    from tidegate.sim.model import STORE_RATE

    a = da.from_array(NoData((4, 2001, 1000)), chunks=(1, 1000, 1000), name="open")
    stored = da.store(a + 1, NoData((4, 2001, 1000)), lock=False, compute=False)
    m = build_model(stored, sizes={"store-map": 0})
    stores = _by_group(m, "store-map")
    assert len(stores) == 12  # 4 steps x rows 1000 + 1000 + 1
    row = 1000 * 8
    for k, d in stores.items():
        rows = 1 if k[2] == 2 else 1000
        assert d >= rows * row / STORE_RATE
        assert d < TASK_OVERHEAD + 3 * rows * row / STORE_RATE


@pytest.mark.parametrize("reduce", ["mean", "nanmean", "var", "nanstd"])
def test_a_reductions_steps_are_sized_as_dask_makes_them(reduce):
    """``a - a.<reduce>(axis=0)`` over chunks of 4 steps, each task's output measured with
    dask.sizeof on the sync scheduler against the twin's size: within 1 kB. dask's
    reductions return dicts of arrays of the reduced block: mean_chunk the sum (its count
    a zero-stride view) or, counting per element (nanmean), sum and count; mean_combine
    sum and a count made whole by adding the views (the zarr anomaly's partial mean:
    16,000,320 B on the LocalCluster, 8 MB in the twin before); moment_chunk/_combine
    sum, count and the second moment. The layers' metadata describe one array, and a
    first step's its input's block (4x: anom24)."""
    import dask
    from dask.sizeof import sizeof

    a = da.random.random((16, 50, 40), chunks=(4, 50, 40))
    x = a - getattr(da, reduce)(a, axis=0, split_every=2)
    m = build_model(x)
    real = {}

    class Sizes(dask.callbacks.Callback):
        def _posttask(self, key, result, dsk, state, id):
            real[key] = sizeof(result)

    with Sizes():
        dask.compute(x, scheduler="sync")
    steps = [k for k in real if k in m.sizes and type(k) is tuple and "random" not in k[0]]
    groups = {k[0].rsplit("-", 1)[0] for k in steps}
    assert len(groups) >= 3, groups  # the first step, the partials, the subtraction
    off = {k: (real[k], m.sizes[k]) for k in steps if abs(real[k] - m.sizes[k]) > 1000}
    assert not off, off
