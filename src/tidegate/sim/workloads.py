"""The seed workloads (``tidegate.workloads``) as graphs at any size, with no data.

Inputs are ``da.from_array`` over objects that only have a shape and a dtype: the same
graph as ``da.from_zarr`` (one shared handle, one load task per chunk), and nothing can
be read. Each time step is one chunk of ``side x side`` float64 (``chunk`` bytes), as in
the seed (one file per step); every pipeline ends in a store, as ``tidegate demo``'s do,
and dask's optimisation fuses what it fuses for real.

``vorticity`` is built directly as the seed describes it (dask/distributed#6360): per step
two opens (u, v) and one vorticity-and-store task, plus three shared grid chains
(open -> transform: dx, dy, area) that every step reads.

Durations: the default model of :mod:`tidegate.sim.model` (loads, stores and arithmetic
per chunk, added up over what a fused task does); vorticity states its own, the same way.
"""

from __future__ import annotations

import math

from dataclasses import dataclass

import dask.array as da
import numpy as np
from dask._task_spec import DataNode

from .model import COMPUTE_RATE, LOAD_RATE, STORE_RATE, TASK_OVERHEAD

DTYPE = np.dtype("f8")


class NoData:
    """Shape and dtype of an array that is never read (the twin computes nothing)."""

    def __init__(self, shape: tuple, dtype=DTYPE) -> None:
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)
        self.ndim = len(self.shape)

    def __getitem__(self, index):
        raise RuntimeError("a twin workload has no data: simulate it, do not compute it")

    def __setitem__(self, index, value):
        raise RuntimeError("a twin workload has no data: simulate it, do not compute it")


def side_for(chunk_bytes: float) -> int:
    """Side of a square float64 time step of about ``chunk_bytes``."""
    return max(2, round(math.sqrt(chunk_bytes / DTYPE.itemsize)))


def _open(name: str, shape: tuple, chunks: tuple) -> da.Array:
    return da.from_array(NoData(shape), chunks=chunks, name=f"open-{name}")


def stack_sum(a, b, grid, side):
    return da.stack([a, b]).sum(axis=0)


def slice_add(a, b, grid, side):
    return a[1:] + b[1:]


def rechunk_add(a, b, grid, side):
    target = (2, max(1, side // 2), side)
    return a.rechunk(target) + b.rechunk(target)


def weighted(a, b, grid, side):
    return grid[0][None] * a + grid[1][None] * b


def running_total(a, b, grid, side):
    return da.cumsum(a + b, axis=0)


def anomaly(a, b, grid, side):
    return a - a.mean(axis=0)


WORKLOADS = {
    "stack-sum": stack_sum,
    "slice-add": slice_add,
    "rechunk-add": rechunk_add,
    "weighted": weighted,
    "vorticity": None,  # built directly: see vorticity_graph
    "running-total": running_total,
    "anomaly": anomaly,
}


@dataclass
class Workload:
    graph: object  # a collection, or a graph mapping with ``keys``
    keys: list | None
    sizes: dict
    durations: dict | None  # None: the default model
    tasks: int = 0


def vorticity_graph(steps: int, chunk_bytes: float) -> Workload:
    """The seed's vorticity: 2 opens per step, 3 shared grid chains, a fused compute-and-
    store per step (what dask makes of ``da.store(f(u, v, grid))``)."""
    chunk = int(chunk_bytes)
    # Functions are placeholders, never called. Each variable's opens share a store handle
    # (a DataNode), as with da.from_zarr.
    dsk: dict = {f"store-{v}": DataNode(f"store-{v}", NoData((steps, 1, 1)))
                 for v in ("u", "v", "grid")}
    for g in ("dx", "dy", "area"):
        dsk[f"open-{g}"] = (np.ones, "store-grid")
        dsk[f"grid-{g}"] = (np.negative, f"open-{g}")
    stores = []
    for t in range(steps):
        dsk[("open-u", t)] = (np.ones, "store-u")
        dsk[("open-v", t)] = (np.ones, "store-v")
        key = ("vorticity-store", t)
        dsk[key] = (np.add, ("open-u", t), ("open-v", t), "grid-dx", "grid-dy", "grid-area")
        stores.append(key)
    load, store, compute = chunk / LOAD_RATE, chunk / STORE_RATE, chunk / COMPUTE_RATE
    sizes = {"open-u": chunk, "open-v": chunk, "vorticity-store": 0}
    times = {"open-u": TASK_OVERHEAD + load, "open-v": TASK_OVERHEAD + load,
             "vorticity-store": TASK_OVERHEAD + 6 * compute + store}  # 5 inputs, 1 output
    for g in ("dx", "dy", "area"):
        sizes[f"open-{g}"] = sizes[f"grid-{g}"] = chunk
        times[f"open-{g}"] = TASK_OVERHEAD + load
        times[f"grid-{g}"] = TASK_OVERHEAD + 2 * compute
    return Workload(dsk, stores, sizes, times, len(dsk))


def build(name: str, steps: int, chunk_bytes: float = 190e6) -> Workload:
    """Workload ``name`` over ``steps`` time steps of about ``chunk_bytes`` each, ending in
    a store; its graph is never to be computed."""
    if name not in WORKLOADS:
        raise ValueError(f"unknown workload {name!r}; choose from {', '.join(sorted(WORKLOADS))}")
    if name == "vorticity":
        return vorticity_graph(steps, chunk_bytes)
    side = side_for(chunk_bytes)
    shape, chunks = (steps, side, side), (1, side, side)
    a, b = _open("u", shape, chunks), _open("v", shape, chunks)
    grid = [_open(g, (side, side), (side, side)) for g in ("dx", "dy", "area")]
    result = WORKLOADS[name](a, b, grid, side)
    stored = da.store(result, NoData(result.shape, result.dtype), lock=False, compute=False)
    return Workload(stored, None, {"store-map": 0}, None)
