"""The bridge to dask: ``get(dsk, keys, **kw)`` for ``scheduler=``; dask graph -> TaskGraph."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import numpy as np
from dask._task_spec import DataNode, GraphNode, Task, convert_legacy_graph
from dask.callbacks import local_callbacks, unpack_callbacks
from dask.core import flatten
from dask.local import nested_get
from dask.order import order as dask_order
from dask.utils import key_split

from . import config
from .core import Scheduler
from .graph import TaskGraph
from .local import RunStats, progress_state, run
from .policy import Policy, find_roots

last_stats: RunStats | None = None  # of the latest get() in this process, for demos and benches


def to_taskgraph(
    dsk: Mapping, keys: list, supplied: Mapping | None = None, order: str = "dfs"
) -> TaskGraph:
    """A validated TaskGraph of a converted dask graph (``{key: GraphNode}``)."""
    supplied = supplied or {}
    uncallable = []
    for k, node in dsk.items():
        if not isinstance(node, GraphNode):
            raise TypeError(f"task {k!r} is a {type(node).__name__}, not a dask task")
        if isinstance(node, Task) and not callable(node.func):
            uncallable.append(f"{k!r} ({type(node.func).__name__} {node.func!r:.40})")
    if uncallable:
        raise ValueError(
            f"{len(uncallable)} tasks have a function that is not callable: "
            f"{', '.join(uncallable[:5])}{' ...' if len(uncallable) > 5 else ''}"
        )
    graph = TaskGraph.from_dependencies(
        {k: node.dependencies for k, node in dsk.items()}, keys, supplied=supplied
    )
    nodes = list(dsk.values())
    n = len(nodes)
    constant = np.fromiter((type(v) is DataNode for v in nodes), bool, n)
    marked = np.fromiter((v.data_producer for v in nodes), bool, n)
    graph.root = find_roots(graph.dep_ptr, graph.dep_idx, graph.ndependents, constant, marked)
    graph.set_groups(_groups(graph.keys))
    if order == "dask":
        ranks = dask_order(dsk)
        graph.set_order(np.argsort(np.argsort([ranks[k] for k in graph.keys], kind="stable")))
    return graph


def chunk_sizes(expr) -> dict:
    """``{layer name: (chunks, itemsize)}`` from the array metadata dask keeps per layer.

    dask hands a custom get an expression whose operands carry the high-level graph;
    its array layers know their chunks and dtype. Other collections give nothing.
    """
    out: dict = {}
    for op in getattr(expr, "operands", ()):
        hlg = getattr(op, "hlg", None)
        for name, layer in getattr(hlg, "layers", {}).items():
            ann = getattr(layer, "collection_annotations", None) or {}
            dtype, chunks = ann.get("dtype"), ann.get("chunks")
            itemsize = getattr(dtype, "itemsize", 0)
            if chunks is not None and itemsize and getattr(dtype, "kind", "O") != "O":
                out[name] = (chunks, itemsize)
    return out


def estimate_sizes(keys: list, sizes: dict) -> np.ndarray:
    """Output bytes per key from its layer's chunk shape; NaN where unknown."""
    est = np.full(len(keys), np.nan)
    if not sizes:
        return est
    for i, k in enumerate(keys):
        if type(k) is tuple and k[0] in sizes:
            chunks, itemsize = sizes[k[0]]
            idx = k[1:]
            if len(idx) == len(chunks):
                try:
                    est[i] = float(np.prod([c[j] for c, j in zip(chunks, idx)])) * itemsize
                except (IndexError, TypeError):
                    pass
    return est


def _groups(keys: list) -> list[str]:
    # key_split is a few µs; array keys share their name, so split each name once.
    cache: dict = {}
    out = []
    for k in keys:
        name = k[0] if type(k) is tuple else k
        g = cache.get(name)
        if g is None:
            g = cache[name] = key_split(name)
        out.append(g)
    return out


def get(
    dsk,
    keys,
    cache: Mapping | None = None,
    num_workers: int | None = None,
    memory_limit=None,
    saturation: float | None = None,
    policy: str | None = None,
    order: str | None = None,
    callbacks=None,
    validate: bool = False,
    **kwargs: Any,
):
    """Compute ``keys`` of a dask graph under tidegate's memory-bounded schedule.

    Use as ``x.compute(scheduler=tidegate.get)`` or ``dask.config.set(scheduler=tidegate.get)``.
    Options default to dask.config's ``tidegate.*``: ``num_workers`` threads,
    ``memory_limit`` (bytes or "4GB") the budget for held results, ``saturation`` (roots in
    flight = ceil(saturation x threads)), ``policy`` ("tidegate" or "priority") and
    ``order`` ("dfs" or "dask"). ``cache`` supplies values for keys by hand.
    Bad graphs (cycles, missing keys) raise ValueError before any task runs.
    """
    global last_stats
    threads = config.num_workers(num_workers)
    budget = config.memory_limit(memory_limit)
    pol = Policy(config.get("policy", policy), config.get("saturation", saturation))
    how = config.order(order)

    t0 = time.perf_counter()
    sizes: dict = {}
    if not isinstance(dsk, Mapping):
        sizes = chunk_sizes(dsk)
        dsk = dsk.__dask_graph__()
    dsk = convert_legacy_graph(dsk)
    cache = dict(cache or {})
    if cache:  # supplied values replace their tasks
        dsk = {k: v for k, v in dsk.items() if k not in cache}
    flat = list(flatten(keys)) if isinstance(keys, list) else [keys]

    with local_callbacks(callbacks) as cbs:
        start, start_state, pretask_cbs, posttask_cbs, finish = unpack_callbacks(cbs)
        state: dict = {}
        started = []
        errored = True
        try:
            for cb in cbs:
                if cb[0]:
                    cb[0](dsk)
                started.append(cb)
            graph = to_taskgraph(dsk, flat, cache, how)
            # Only roots: their layer metadata is exact (a loaded chunk); intermediate
            # layers can claim full chunks where a reduction returns far less.
            graph.size = np.where(graph.root, estimate_sizes(graph.keys, sizes), np.nan)
            core = Scheduler(graph, [(threads, budget)], pol, validate=validate)
            ingest = time.perf_counter() - t0
            state = progress_state(core)
            for f in start_state:
                f(dsk, state)
            gkeys = graph.keys
            nodes = [dsk[k] for k in gkeys]
            dep_ptr, dep_idx = core._dep_ptr, core._dep_idx
            supplied = _supplied_inputs(dsk, gkeys, cache) if cache else None

            def execute(i: int, inputs: list) -> Any:
                names = [gkeys[dep_idx[c]] for c in range(dep_ptr[i], dep_ptr[i + 1])]
                if supplied is not None and supplied[i]:
                    names += [k for k in dsk[gkeys[i]].dependencies if k in cache]
                return nodes[i](dict(zip(names, inputs)))

            pre = None
            if pretask_cbs:
                def pre(i: int) -> None:
                    for f in pretask_cbs:
                        f(gkeys[i], dsk, state)

            post = None
            if posttask_cbs:
                def post(i: int, result: Any, thread: int) -> None:
                    for f in posttask_cbs:
                        f(gkeys[i], result, dsk, state, thread)

            results, last_stats = run(
                core, execute, supplied, pre, post, config.get("spill-directory")
            )
            last_stats.ingest_time = ingest
            errored = False
        finally:
            for cb in started:
                if cb[4]:
                    cb[4](dsk, state, errored)
    values = {gkeys[i]: v for i, v in results.items()}
    values.update((k, v) for k, v in cache.items() if k in set(flat))
    return nested_get(keys, values)


def _supplied_inputs(dsk: Mapping, keys: list, cache: Mapping) -> list:
    """Per task, the values of its dependencies that the caller supplied (in a fixed order)."""
    out = []
    for k in keys:
        names = [d for d in dsk[k].dependencies if d in cache]
        out.append([cache[d] for d in names])
    return out
