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

Two forms (``build(..., store=...)``):

- ``store=True`` (the default since session 15): what a user's ``da.store(x, target)`` /
  ``x.to_zarr(...)``, and ``Client.compute`` of ``tidegate.workloads`` (``tidegate demo``,
  bench/distributed.py), send to the scheduler: each per-chunk store (fused with its loads
  and arithmetic, so often a root) returns ``None``, and ONE final task
  (``finalize-hlgfinalizecompute-...``, dask's ``FinalizeCompute``) depends on all of them
  and is the only output. The stores' ``None``s stay in the workers' memory until it runs.
- ``store=False``: the per-chunk stores are the outputs, held by the client, as ``persist``
  would have them (the default until session 15: every recorded fingerprint and bench
  script passes it, so their numbers still compare).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import dask.array as da
import numpy as np
from dask._task_spec import Alias, DataNode, List, Task, TaskRef
from dask.base import tokenize
from dask.sizeof import sizeof
from dask.utils import key_split

from .model import (
    COMPUTE_RATE, LOAD_RATE, STORE_RATE, STORES, TASK_OVERHEAD, Model, _calls, build_model,
)

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
    sizes: dict | Callable  # as simulate's ``sizes``
    durations: dict | None  # None: the default model
    tasks: int = 0
    finalize: bool = False  # a collection's final task added as dask.compute adds it
    store_results: bool = False  # every store (and alias of one) returns None (STORE_RESULT)

    def model(self) -> Model:
        """The twin's :class:`~tidegate.sim.model.Model` of this workload, in its form."""
        m = build_model(self.graph, self.keys, sizes=self.sizes, durations=self.durations,
                        finalize=self.finalize)
        if self.store_results:
            # Set after the durations are modelled: the default model times a task by its
            # output's bytes, and a store's work is its chunk, not its None.
            for key in _stores(m.dsk):
                m.sizes[key] = STORE_RESULT
        return m


def _stores(dsk: dict) -> list:
    """Keys of the tasks that call dask's store function (``load_store_chunk``, fused with
    what it stores), and of the aliases of them (stack-sum's and running-total's
    ``store-map`` keys alias the ``...-store-map`` task that reduces and stores)."""
    out = [k for k, node in dsk.items() if STORES.intersection(_calls(node)[0])]
    found = set(out)
    out += [k for k, node in dsk.items() if type(node) is Alias and node.target in found]
    return out


# What the store form's tasks return: a store its ``None``; dask's final task over them an
# empty array (``finalize`` of the stores' results, measured: 0 bytes).
STORE_RESULT = sizeof(None)
FINAL_SIZES = {"finalize-hlgfinalizecompute": 0}


def vorticity_graph(steps: int, chunk_bytes: float, store: bool = True) -> Workload:
    """The seed's vorticity: 2 opens per step, 3 shared grid chains, a fused compute-and-
    store per step (what dask makes of ``da.store(f(u, v, grid))``); ``store``: and the
    final task over every step's store, as dask.compute sends it (see the module)."""
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
    load, write, compute = chunk / LOAD_RATE, chunk / STORE_RATE, chunk / COMPUTE_RATE
    sizes = {"open-u": chunk, "open-v": chunk, "vorticity-store": 0}
    times = {"open-u": TASK_OVERHEAD + load, "open-v": TASK_OVERHEAD + load,
             "vorticity-store": TASK_OVERHEAD + 6 * compute + write}  # 5 inputs, 1 output
    for g in ("dx", "dy", "area"):
        sizes[f"open-{g}"] = sizes[f"grid-{g}"] = chunk
        times[f"open-{g}"] = TASK_OVERHEAD + load
        times[f"grid-{g}"] = TASK_OVERHEAD + 2 * compute
    if not store:
        return Workload(dsk, stores, sizes, times, len(dsk))
    final = f"finalize-hlgfinalizecompute-{tokenize(stores)}"  # dask's name for it
    dsk[final] = Task(final, len, List(*[TaskRef(k) for k in stores]))  # never called
    sizes["vorticity-store"] = STORE_RESULT
    sizes["finalize-hlgfinalizecompute"] = FINAL_SIZES["finalize-hlgfinalizecompute"]
    times["finalize-hlgfinalizecompute"] = TASK_OVERHEAD
    return Workload(dsk, [final], sizes, times, len(dsk))


def build(name: str, steps: int, chunk_bytes: float = 190e6, store: bool = True) -> Workload:
    """Workload ``name`` over ``steps`` time steps of about ``chunk_bytes`` each, ending in
    a store; its graph is never to be computed. ``store``: the form a computed ``da.store``
    has (stores returning ``None``, one final task over them); ``False``: the stores are the
    outputs (see the module). Build its model with :meth:`Workload.model` (the final task
    is added there)."""
    if name not in WORKLOADS:
        raise ValueError(f"unknown workload {name!r}; choose from {', '.join(sorted(WORKLOADS))}")
    if name == "vorticity":
        return vorticity_graph(steps, chunk_bytes, store)
    side = side_for(chunk_bytes)
    shape, chunks = (steps, side, side), (1, side, side)
    a, b = _open("u", shape, chunks), _open("v", shape, chunks)
    grid = [_open(g, (side, side), (side, side)) for g in ("dx", "dy", "area")]
    result = WORKLOADS[name](a, b, grid, side)
    stored = da.store(result, NoData(result.shape, result.dtype), lock=False, compute=False)
    if not store:
        return Workload(stored, None, {"store-map": 0}, None)
    return Workload(stored, None, {"store-map": 0, **FINAL_SIZES}, None, finalize=True,
                    store_results=True)


def resample(path, days: int = 731, ny: int = 90, nx: int = 180, chunk: int = 30,
             nvars: int = 2) -> Workload:
    """chain24 (issue 9; probe24 on a LocalCluster): ``ds.resample(time="7D").mean()
    .to_zarr(...)`` over a zarr store of ``chunk``-day chunks of ``nvars`` float64
    variables ``(days, ny, nx)`` from 2000-01-01, written at ``path`` (zeros; the output
    goes to ``path + ".out"``). Weeks straddle the chunks, so the load of chunk i+1
    completes the week it shares with chunk i. Not a seed workload (not in ``WORKLOADS``):
    it needs xarray, zarr and files. The graph is the collection ``to_zarr(...,
    compute=False)`` returns (its store keys hold a uuid: every call names them anew); the
    sizes and durations (functions of the key: :func:`resample_sizes`,
    :func:`resample_durations`) are those measured on the real graph; the default model
    knows no xarray chunk's size."""
    import xarray as xr

    t = np.arange(np.datetime64("2000-01-01"), np.datetime64("2000-01-01") + days)
    ds = xr.Dataset({n: (("time", "y", "x"), da.zeros((days, ny, nx), chunks=(chunk, ny, nx)))
                     for n in "uvwxyz"[:nvars]}, coords={"time": t})  # fmt: skip
    ds.to_zarr(path, mode="w")
    weekly = xr.open_zarr(path).resample(time="7D").mean()
    stored = weekly.to_zarr(str(path) + ".out", mode="w", compute=False)
    return Workload(stored, None, resample_sizes(chunk, ny, nx),
                    resample_durations(chunk, ny, nx))


def resample_sizes(chunk: int = 30, ny: int = 90, nx: int = 180) -> Callable:
    """Bytes per key of :func:`resample`'s graph (same geometry), as measured on the sync
    scheduler over probe24's store (res27): a load its ``chunk``-day chunk; a straddled
    week's slice of one chunk (``getitem``) and its ``mean_chunk`` two days' planes; every
    other task (a week's fused mean and store, ``store-map``) 16 bytes. Why measured: sized
    as a day's plane each (chain24's model), the 16-byte store outputs piled up to the end
    and hid a chain of loads the LocalCluster showed (1.7x queuing's managed bytes)."""
    plane = ny * nx * DTYPE.itemsize
    return _resample_model(chunk * plane, {"getitem": 2 * plane, "mean_chunk": 2 * plane}, 16)


# Seconds per task of resample's graph measured at 180 x 360 planes of 30 days (15.6 MB
# chunks; res27): a load 16 ms (scaled by the chunk's bytes), the rest by group.
_RESAMPLE_SECONDS = {"concatenate-getitem": 0.0078, "getitem": 0.001, "mean_chunk": 0.0001,
                     "store-map": 0.0001}


def resample_durations(chunk: int = 30, ny: int = 90, nx: int = 180) -> Callable:
    """Seconds per key of :func:`resample`'s graph (same geometry): see ``_RESAMPLE_SECONDS``."""
    load = 0.016 * chunk * ny * nx * DTYPE.itemsize / 15.55e6
    return _resample_model(load, _RESAMPLE_SECONDS, 0.0005)


def _resample_model(load: float, by_group: dict, other: float) -> Callable:
    """key -> ``load`` for a chunk's load, else its group's value in ``by_group`` or
    ``other``."""

    def of(key) -> float:
        name = key_split(key)
        return load if name.startswith("open_dataset") else by_group.get(name, other)

    return of
