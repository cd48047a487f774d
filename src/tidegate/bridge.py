"""The bridge to dask: ``get(dsk, keys, **kw)`` for ``scheduler=``; dask graph -> TaskGraph."""

from __future__ import annotations

import functools
import gc
import math
import os
import time
import types
import warnings
from collections.abc import Mapping
from concurrent.futures import Executor
from typing import Any

import dask.config
import numpy as np
from dask._task_spec import Alias, DataNode, GraphNode, Task, TaskRef, convert_legacy_graph
from dask.callbacks import local_callbacks, unpack_callbacks
from dask.core import flatten
from dask.local import nested_get
from dask.order import order as dask_order
from dask.utils import format_bytes, key_split

from . import annotations, config, trace
from .core import Scheduler
from .graph import TaskGraph
from .live import callback_state
from .local import LEDGER, Hooks, RunStats, in_worker_loop, run, stats_sink
from .measure import MARGIN, TASK_FOOTPRINT, concatenations, one_thread_needs, rss_reader
from .policy import Policy, find_roots, largest_footprint

# The latest get()'s statistics in this process, for demos. Concurrent computes overwrite it:
# pass ``stats=RunStats()`` to get a run's own.
last_stats: RunStats | None = None

# Every keyword get() takes: tidegate's own, then dask.local's and dask.threaded's.
OPTIONS = (
    "num_workers", "memory_limit", "saturation", "policy", "order", "validate", "stats",
    "cache", "callbacks", "pool", "get_id", "rerun_exceptions_locally", "pack_exception",
    "raise_exception", "dumps", "loads", "chunksize",
)  # fmt: skip


def to_taskgraph(
    dsk: Mapping, keys: list, supplied: Mapping | None = None, order: str = "dfs",
    dependencies: Mapping | None = None, order_graph: Mapping | None = None,
    sizes: dict | None = None,
) -> TaskGraph:  # fmt: skip
    """A validated TaskGraph of a converted dask graph (``{key: GraphNode}``).

    ``dependencies`` (default: each node's own) lets the caller redirect edges, e.g. past
    aliases; ``order_graph`` is the graph dask.order ranks when ``order="dask"``;
    ``sizes``: :func:`chunk_sizes`, layers' chunk metadata: every task's estimate goes to
    ``graph.layer_size``, the roots' to ``graph.size``.
    """
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
    if dependencies is None:
        dependencies = {k: node.dependencies for k, node in dsk.items()}
    graph = TaskGraph.from_dependencies(dependencies, keys, supplied=supplied, cull=True)
    nodes = list(dsk.values())
    if len(graph.keys) < len(nodes):  # culled: tasks no output needs
        nodes = [dsk[k] for k in graph.keys]
    n = len(nodes)
    constant = np.fromiter((type(v) is DataNode for v in nodes), bool, n)
    marked = np.fromiter((v.data_producer for v in nodes), bool, n)
    # Run again, only dask's own reads return the same data: a producer fused with a user's
    # function (from_zarr(...).map_blocks(add_noise): dask marks the fused task a producer)
    # must not be (review20b: an anomaly's mean 0.25 instead of 6e-16).
    rereadable = np.fromiter((m and _reads_again(v) for m, v in zip(marked.tolist(), nodes)),
                             bool, n)  # fmt: skip
    if rereadable.any() and _overwrites_its_input(dsk, supplied):
        rereadable[:] = False
    # Only input-free tasks' estimates are read (a handle or data?) and kept (roots'):
    # their layer metadata is exact (a loaded chunk); intermediate layers can claim full
    # chunks where a reduction returns far less.
    est = estimate_sizes(graph.keys, sizes or {})
    graph.root = find_roots(graph.dep_ptr, graph.dep_idx, graph.ndependents, constant, marked,
                            np.where(np.diff(graph.dep_ptr) == 0, est, np.nan))
    graph.size = np.where(graph.root, est, np.nan)
    graph.layer_size = est
    # (get() hands DataNodes in as supplied values, not tasks, so there this is all False;
    # a caller converting a whole graph keeps them as tasks: core must not count them.)
    graph.constant = constant
    graph.rereadable = rereadable
    graph.set_groups(_groups(graph.keys))
    if order == "dask":
        ranks = dask_order(order_graph if order_graph is not None else dsk)
        graph.set_order(np.argsort(np.argsort([ranks[k] for k in graph.keys], kind="stable")))
    return graph


# dask's reads of a stored or embedded array (from_zarr, from_array, xarray's loaders).
_SOURCES = {("dask.array.core", n) for n in ("getter", "getter_nofancy", "getter_inline")}
# Libraries whose functions give the same output for the same input (a dask chunk
# function: slicing, arithmetic, concatenation); a user's function may not.
_PURE = ("dask", "numpy", "operator", "_operator", "builtins", "toolz", "tlz")


def _reads_again(node) -> bool:
    """Does ``node`` (a task dask marks ``data_producer``) return the same data when run
    again? Only when it reads with dask's getters and every other callable in it is dask's,
    numpy's (not numpy.random's, not a vectorized user function) or the operator module's:
    task functions of fused subgraphs and nested tasks, and callables passed as data too
    (review21: map_blocks with ``block_id`` carries the user's function in a DataNode,
    ``enforce_ndim=True`` in a keyword: both ran again under a limit, an anomaly's mean
    0.24 instead of 1e-16). A callable object is judged by what it holds where its type
    is known (_HOLDS), else it is a user's: its ``__call__`` may do anything (review22:
    ``da.frompyfunc(user)`` and ``toolz.compose(user, np.abs)`` passed as dask's and
    toolz's). Past ``_LOOK`` values looked at: no (not worth the walk)."""
    stack = [node]
    looked = 0
    read = False
    while stack:
        looked += 1
        if looked > _LOOK:
            return False
        x = stack.pop()
        if isinstance(x, Task):
            f = x.func
            stack.extend(x.args)
            stack.extend(x.kwargs.values())
        elif isinstance(x, DataNode):
            stack.append(x.value)
            continue
        elif isinstance(x, (list, tuple, set, frozenset)):
            stack.extend(x)
            continue
        elif isinstance(x, dict):
            stack.extend(x.values())
            continue
        elif isinstance(x, GraphNode):  # List, Dict, Alias, TaskRef: their parts
            stack.extend(getattr(x, "args", ()) or ())
            continue
        elif callable(x):
            f = x  # a function (or a class) handed in as data or held by a partial
        else:
            continue
        kind = type(f)
        held = _HOLDS.get((kind.__module__, kind.__qualname__))
        if held is not None:  # a partial, a vectorize, a compose: what it calls counts
            stack.extend(held(f))
            continue
        if isinstance(f, _FUNCTIONS):
            # (a closure's cells: a function a library made around a user's, toolz.memoize)
            for c in getattr(f, "__closure__", None) or ():
                v = _cell(c)
                if callable(v):
                    stack.append(v)
        elif not (isinstance(f, type) or (kind.__module__, kind.__qualname__) in _PLAIN):
            return False  # an object of a type not known: its __call__ may be anything
        module = getattr(f, "__module__", None) or ""
        if (module, getattr(f, "__name__", None)) in _SOURCES:
            read = True
        elif module.split(".")[0] not in _PURE or module.startswith("numpy.random"):
            return False
    return read


_FUNCTIONS = (types.FunctionType, types.BuiltinFunctionType)
# Callable objects that are pure when their module is (a ufunc numpy made from a Python
# function has none: np.frompyfunc's): ufuncs, numpy's dispatchers (np.sum), getters.
_PLAIN = {
    ("numpy", "ufunc"), ("numpy", "_ArrayFunctionDispatcher"), ("operator", "itemgetter"),
    ("operator", "attrgetter"), ("dask.utils", "methodcaller"),
}  # fmt: skip


def _methodcaller_args(f) -> list:
    fn, args = f.__reduce__()[:2]  # (methodcaller, (name, *args)), or a partial of it
    return [fn, *args] if isinstance(fn, functools.partial) else list(args)


# Callable objects that call what they hold: (type's module, name) -> the callables and
# arguments to judge in their place.
_HOLDS = {
    ("functools", "partial"): lambda f: [f.func, *f.args, *f.keywords.values()],
    ("numpy", "vectorize"): lambda f: [f.pyfunc],
    ("operator", "methodcaller"): _methodcaller_args,
    ("dask.array.ufunc", "ufunc"): lambda f: [f._ufunc],
    ("dask.array.ufunc", "da_frompyfunc"): lambda f: [f._func],
}
for _m in ("toolz.functoolz", "cytoolz.functoolz"):  # (tlz: either)
    _HOLDS[_m, "Compose"] = lambda f: [f.first, *f.funcs]
    _HOLDS[_m, "curry"] = lambda f: [f.func, *f.args, *(f.keywords or {}).values()]
    _HOLDS[_m, "juxt"] = lambda f: list(f.funcs)
    _HOLDS[_m, "excepts"] = lambda f: [f.func, f.handler]


def _cell(c):
    try:
        return c.cell_contents
    except ValueError:  # empty
        return None


def _overwrites_its_input(dsk: Mapping, supplied: Mapping) -> bool:
    """Does the graph store into an array it reads (``da.store(y, z)`` where y is computed
    from ``z``: an in-place update)? Then no read may run again: read after its own chunk
    was stored, it returns new data (review21: a map_overlap smoothing stored back into
    its zarr array read neighbours' new values, 0.22 off in 2 runs of 11). The arrays
    compared: what dask's chunk stores write into (their ``out``) and what dask's getters
    read (their ``a``: only those reads can be rereadable), each where it is a reference
    too; the same by :func:`_place_of`."""
    targets = set()
    for k, node in dsk.items():
        if isinstance(node, Task) and "store" in key_split(k):
            for v in _arguments(node, dsk, supplied, _STORES, 1, "out"):
                if v is _AT_RUN_TIME:
                    return True  # (a Delayed target: it may be any array, the input too)
                place = _place_of(v)
                if place is not None:
                    targets.add(place)
    if not targets:
        return False
    for node in dsk.values():
        if isinstance(node, Task) and node.data_producer:
            for v in _arguments(node, dsk, supplied, _SOURCES, 0, "a"):
                if v is not _AT_RUN_TIME and _place_of(v) in targets:
                    return True
    return False


# An argument whose value is computed when the graph runs (:func:`_arguments`).
_AT_RUN_TIME = object()
# dask's store of one chunk: (x, out, index, ...); its target is ``out``.
_STORES = {("dask.array.core", n) for n in ("load_store_chunk", "store_chunk")}


def _arguments(node, dsk: Mapping, supplied: Mapping, funcs: set, position: int,
               name: str) -> list:  # fmt: skip
    """The values one argument (``position`` or keyword ``name``) of each call to
    ``funcs`` in a task takes, fused subgraphs and nested tasks too, looked up where it is
    a reference (a fused subgraph's input, a graph key, a supplied value); one computed
    at run time is ``_AT_RUN_TIME``. Only that argument: a read fused into a store task reads its
    source, which is no target (review22: a source counted as one made every read in the
    graph not rereadable)."""
    out = []
    stack = [(node, None)]  # (node, the names it sees: None for the graph's keys)
    looked = 0
    while stack and looked < _LOOK:
        looked += 1
        x, env = stack.pop()
        if isinstance(x, Task):
            f = x.func
            if (getattr(f, "__module__", None), getattr(f, "__name__", None)) in funcs:
                arg = x.args[position] if len(x.args) > position else x.kwargs.get(name)
                v = _resolve(arg, env, dsk, supplied)
                if v is not None:
                    out.append(v)
                elif arg is not None:
                    out.append(_AT_RUN_TIME)
            if _subgraph(x) is not None and len(x.args) >= 3:
                inner, _, inkeys, *deps = x.args
                inside: dict = {}  # the subgraph's names: its tasks, and its inputs
                for k, v in inner.items():
                    inside[k] = (v, inside)
                for k, v in zip(inkeys, deps):
                    inside[k] = (v, env)  # (an input is the outer node, seen from outside)
                stack.extend((v, inside) for v in inner.values())
                continue
            stack.extend((a, env) for a in x.args)
            stack.extend((a, env) for a in x.kwargs.values())
        elif isinstance(x, (list, tuple)):
            stack.extend((a, env) for a in x)
        elif isinstance(x, dict):
            stack.extend((a, env) for a in x.values())
    return out


def _resolve(x, env, dsk: Mapping, supplied: Mapping):
    """The value a task argument stands for, through references (a fused subgraph's
    inputs, the graph's keys, supplied values); None where it is computed at run time."""
    for _ in range(32):
        if isinstance(x, DataNode):
            return x.value
        if isinstance(x, (TaskRef, Alias)):
            key = x.key if isinstance(x, TaskRef) else x.target
            key = key.key if isinstance(key, TaskRef) else key
            if env is not None:
                x, env = env.get(key, (None, None))
            elif key in dsk:
                x = dsk[key]
            else:
                return supplied.get(key)
            if x is None:
                return None
            continue
        if isinstance(x, GraphNode):  # a task: computed when the graph runs
            return None
        return x
    return None


def _place_of(v):
    """Where an array's data lives: a zarr array's store folder (made absolute, links
    resolved) and path, a numpy array's buffer, or those of the array an xarray/dask
    wrapper holds (``.array``, ``._array``: xarray's ZarrArrayWrapper, to the innermost); any
    other object (an h5py dataset, a user's array-like) is itself: the same object read
    and stored into is an in-place update (review22: xarray's reads of the store its
    result was written back into, a folder opened by a relative and an absolute path, one
    array-like as source and target: all three went unseen). None for no array (None,
    numbers, strings)."""
    if v is None or isinstance(v, (bool, int, float, complex, str, bytes, slice)):
        return None
    for _ in range(64):  # (xarray's CF decoding adds a wrapper per step: 7 for a packed int)
        if isinstance(v, np.ndarray):
            while isinstance(v.base, np.ndarray):
                v = v.base
            return ("numpy", id(v))
        path = annotations.plain(v, "store_path")  # zarr 3
        if path is not None:  # (one folder opened as a local or an fsspec store)
            store = path.store
            root = annotations.plain(store, "root")  # a local folder
            if root is not None:
                return ("zarr", os.path.realpath(str(root)), path.path.strip("/"))
            root = annotations.plain(store, "path")  # fsspec's: a path on its filesystem
            if root is None:
                return ("zarr", id(store), path.path)
            protocol = getattr(getattr(store, "fs", None), "protocol", ())
            local = "file" in (protocol if isinstance(protocol, (tuple, list)) else (protocol,))
            norm = os.path.realpath if local else os.path.normpath  # (a local one: links too)
            return ("zarr", norm(str(root)), path.path.strip("/"))
        inner = annotations.plain(v, "array")
        if inner is None:
            inner = annotations.plain(v, "_array")
        if inner is None or inner is v:
            break
        v = inner
    return ("obj", id(v))


# Values _reads_again looks at before it gives up (a task's arguments, fused tasks).
_LOOK = 10_000


def chunk_sizes(expr) -> dict:
    """``{layer name: (chunks, itemsize)}`` from the array metadata dask keeps per layer.

    dask hands a custom get an expression whose operands carry the high-level graph;
    its array layers know their chunks and dtype. Other collections give nothing.
    """
    out: dict = {}
    for op in annotations.plain(expr, "operands") or ():
        hlg = annotations.plain(op, "hlg")
        for name, layer in (annotations.plain(hlg, "layers") or {}).items():
            ann = getattr(layer, "collection_annotations", None) or {}
            dtype, chunks = ann.get("dtype"), ann.get("chunks")
            itemsize = getattr(dtype, "itemsize", 0)
            if chunks is not None and itemsize and getattr(dtype, "kind", "O") != "O":
                out[name] = (chunks, itemsize)
    return out


def fused_layer(name: str, sizes: dict) -> str | None:
    """The layer a fused task's output comes from. dask names a fusion of layers
    ``from-zarr-<t1>`` -> ``stack-<t2>`` -> ``sum-<t3>`` as ``from-zarr-stack-sum-<t3>``:
    the last layer's token, after its prefix."""
    head, _, token = name.rpartition("-")
    if not token:
        return None
    for layer in sizes:
        if layer.endswith("-" + token) and head.endswith(layer[: -len(token) - 1]):
            return layer
    return None


def estimate_sizes(keys: list, sizes: dict) -> np.ndarray:
    """Output bytes per key from its layer's chunk shape (a fused layer's: its last
    layer's); NaN where unknown."""
    est = np.full(len(keys), np.nan)
    if not sizes:
        return est
    fused: dict = {}
    for i, k in enumerate(keys):
        shape = chunk_shape(k, sizes, fused)
        if shape is not None:
            est[i] = float(np.prod(shape[0])) * shape[1]
    return est


def chunk_shape(key, sizes: dict, fused: dict) -> tuple[tuple, int] | None:
    """(shape, itemsize) of the chunk ``key`` names, from its layer's metadata (a fused
    layer's: its last layer's; ``fused`` caches those names); None where unknown."""
    if type(key) is not tuple or type(key[0]) is not str:
        return None
    name = key[0]
    if name not in sizes:
        name = fused.get(key[0], 0)
        if name == 0:
            name = fused[key[0]] = fused_layer(key[0], sizes)
        if name is None:
            return None
    chunks, itemsize = sizes[name]
    idx = key[1:]
    if len(idx) != len(chunks):
        return None
    try:
        return tuple(c[j] for c, j in zip(chunks, idx)), itemsize
    except (IndexError, TypeError):
        return None


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


class _Plan:
    """A converted dask graph split into what runs and what is already there.

    ``tasks``: nodes that run. ``supplied``: values known up front (the caller's ``cache``
    and the graph's DataNodes): not tasks, not counted as memory the run produced (the graph
    or the caller holds them anyway). ``alias``: ``{key: final target}``; an alias is not a
    task either, its dependents read the target's value, so it is held and counted once.
    """

    def __init__(self, dsk: Mapping, flat: list, cache: Mapping):
        supplied = dict(cache)
        tasks: dict = {}
        alias: dict = {}
        for k, node in dsk.items():
            if k in supplied:
                continue
            kind = type(node)
            if kind is DataNode:
                supplied[k] = node.value
            elif kind is Alias:
                alias[k] = node.target
            else:
                tasks[k] = node
        if alias:
            alias = _resolve_aliases(alias)
        absent = [k for k in flat if k not in tasks and k not in supplied and k not in alias]
        if absent:
            shown = ", ".join(repr(k) for k in absent[:5])
            raise KeyError(f"requested keys are not in the graph: {shown}")
        # The keys the TaskGraph must produce: targets of requested aliases stand in.
        self.outputs = [alias.get(k, k) for k in flat]
        self.tasks, self.supplied, self.alias = tasks, supplied, alias
        self.dependencies: dict | None = None
        if alias:
            missing = {t: k for k, t in alias.items() if t not in tasks and t not in supplied}
            if missing:
                detail = "; ".join(f"{t!r} (needed by {k!r})" for t, k in list(missing.items())[:5])
                raise ValueError(
                    f"{len(missing)} dependencies are neither in the graph nor supplied: {detail}"
                )
            self.dependencies = {
                k: [alias.get(d, d) for d in node.dependencies] for k, node in tasks.items()
            }


def _resolve_aliases(alias: dict) -> dict:
    out = {}
    for k in alias:
        seen = [k]
        t = alias[k]
        while t in alias:
            if t in seen:
                path = " <- ".join(repr(x) for x in [*seen, t])
                raise ValueError(f"the graph has a cycle: {path} (each needs the next)")
            seen.append(t)
            t = alias[t]
        out[k] = t
    return out


def _gatherer(plan: _Plan, graph: TaskGraph):
    """``gather(i, data)``: task i's ``{name: value}`` from held results, on the caller."""
    gkeys = graph.keys
    dep_ptr, dep_idx = graph.dep_ptr.tolist(), graph.dep_idx.tolist()
    supplied, alias = plan.supplied, plan.alias
    # Per task, what its graph edges do not give under the names the task uses: supplied
    # values, and alias names (read from the target's result). Sparse: most tasks have none.
    extra_values: dict[int, dict] = {}
    extra_names: dict[int, list] = {}
    if supplied or alias:
        index = None
        for i, k in enumerate(gkeys):
            for d in plan.tasks[k].dependencies:
                if d in alias:
                    t = alias[d]
                    if t in supplied:
                        extra_values.setdefault(i, {})[d] = supplied[t]
                    else:
                        if index is None:
                            index = {key: j for j, key in enumerate(gkeys)}
                        extra_names.setdefault(i, []).append((d, index[t]))
                elif d in supplied:
                    extra_values.setdefault(i, {})[d] = supplied[d]

    if not extra_values and not extra_names:
        def gather(i: int, data: dict) -> dict:
            return {gkeys[d]: data[d] for d in dep_idx[dep_ptr[i] : dep_ptr[i + 1]]}
        return gather

    def gather_extra(i: int, data: dict) -> dict:
        values = {gkeys[d]: data[d] for d in dep_idx[dep_ptr[i] : dep_ptr[i + 1]]}
        more = extra_values.get(i)
        if more is not None:
            values.update(more)
        names = extra_names.get(i)
        if names is not None:
            for name, j in names:
                values[name] = data[j]
        return values

    return gather_extra


def _store_call(node):
    """The ``load_store_chunk`` call of a ``da.store`` chunk, possibly inside a fused
    subgraph, and that subgraph's task (None if unfused); None if the task stores nothing.
    Matched by name: dask.array is an optional dependency."""
    outer = None
    for _ in range(8):  # fused subgraphs nest a few levels at most
        func = getattr(node, "func", None)
        if getattr(func, "__name__", None) == "load_store_chunk" \
                and getattr(func, "__module__", "") == "dask.array.core":  # fmt: skip
            return node, outer
        inner = _subgraph(node)
        if inner is None or len(node.args) < 3:
            return None
        outer, node = node, inner.get(node.args[1])
    return None


def _subgraph(node) -> dict | None:
    """The inner tasks of a task dask fused (``_execute_subgraph``), else None."""
    args = getattr(node, "args", ())
    if getattr(getattr(node, "func", None), "__name__", None) == "_execute_subgraph" \
            and args and isinstance(args[0], dict):  # fmt: skip
        return args[0]
    return None


def _returns_nothing(node) -> bool:
    """A ``da.store`` chunk (without ``return_stored``): it writes its chunk and returns an
    empty array, whatever its layer's chunk metadata claims."""
    call = _store_call(node)
    return call is not None and not call[0].kwargs.get("return_stored", False)


def _literal(arg, outer):
    """An argument's value where the graph embeds it (through one fused subgraph's inputs),
    else None."""
    if type(arg) is DataNode:
        return arg.value
    if isinstance(arg, TaskRef):
        inkeys = list(outer.args[2]) if outer is not None else []
        return _literal(outer.args[3 + inkeys.index(arg.key)], None) if arg.key in inkeys else None
    return None if isinstance(arg, GraphNode) else arg


def store_cut_bytes(node) -> float:
    """What a store chunk holds while it writes, if its region cuts its target's chunks:
    zarr (like any chunked store) writes whole chunks, so it first reads back each chunk the
    region covers only in part and merges into it, and it encodes each chunk it writes (a copy
    up to its size): the chunks touched once, those cut 1.5 times more (measured, zstd: a
    32 MB write across two zarr chunks held 151 MB more than its data, 64 of them encoded
    copies; slice-add's stores 124 MB where one of two chunks is cut). Once more each (1x)
    named limits that ran at 1.04-1.08x and once past 1.1x; twice more named 299 MiB and
    refused slice-add at 300 MB, where it runs at 0.85x. A store that cuts nothing counts 0
    here: its need is its chunk's."""
    call = _store_call(node)
    if call is None:
        return 0.0
    (store, outer), n = call, len(call[0].args)
    target = _literal(store.args[1], outer) if n > 1 else None
    index = _literal(store.args[2], outer) if n > 2 else None
    region = _literal(store.kwargs.get("region"), outer)
    chunks, shape = getattr(target, "chunks", None), getattr(target, "shape", None)
    itemsize = getattr(getattr(target, "dtype", None), "itemsize", 0)
    if region:
        from dask.array.optimization import fuse_slice

        index = fuse_slice(region, index) if index else region
    if not (isinstance(chunks, tuple) and isinstance(index, tuple) and shape and itemsize):
        return 0.0
    if len(chunks) != len(shape) or len(index) != len(shape):
        return 0.0
    touched = whole = 1
    for s, c, size in zip(index, chunks, shape):
        if not isinstance(s, slice) or not isinstance(c, int) or c <= 0:
            return 0.0
        start, stop, _ = s.indices(size)
        if stop <= start:
            return 0.0
        first, last = start // c, (stop - 1) // c
        touched *= last - first + 1
        # An edge chunk is whole only written whole: zarr keeps it at full size (writing
        # 3 of its 4 rows cost 55 MB beside 30 for 4 rows of 32 MB).
        whole *= sum(start <= j * c and (j + 1) * c <= stop for j in range(first, last + 1))
    cut = touched - whole
    return (touched + 1.5 * cut) * math.prod(chunks) * itemsize if cut else 0.0


def _warn_outputs_over_budget(outputs: list, dsk: Mapping, sizes: dict, cap: float) -> None:
    """Requested outputs are held to the end: if their known sizes alone exceed the budget,
    they go to disk as they finish and all come back at the end. Say so up front. An output
    of unknown size (compute()'s final concatenation) counts the known sizes of its inputs,
    which it holds all at once."""
    def node(k):  # through aliases: a finalize's inputs are aliases of fused store chunks
        n = dsk.get(k)
        for _ in range(8):
            if type(n) is not Alias:
                break
            n = dsk.get(n.target)
        return n

    total = 0.0
    for k, est in zip(outputs, estimate_sizes(outputs, sizes).tolist()):
        if _returns_nothing(node(k)):
            continue
        if est == est:
            total += est
        elif (n := node(k)) is not None:
            held = [d for d in n.dependencies if not _returns_nothing(node(d))]
            total += float(np.nansum(estimate_sizes(held, sizes)))
    if total > cap:
        warnings.warn(
            f"the requested outputs need {format_bytes(total)} at once at the end, more "
            f"than memory_limit={format_bytes(cap)}: tidegate will spill them to disk as they "
            f"finish and read them all back. Raise memory_limit, or compute a reduction or a "
            f"store (to_zarr) instead of the whole array.",
            RuntimeWarning,
            stacklevel=4,
        )


def _unknown_options(kwargs: dict) -> TypeError:
    names = ", ".join(repr(k) for k in kwargs)
    return TypeError(
        f"tidegate.get() got unexpected keyword argument{'s' if len(kwargs) > 1 else ''} "
        f"{names}; valid options are: {', '.join(OPTIONS)} (a keyword a library passes "
        f"through compute() can be allowed with dask.config tidegate.ignore-options)"
    )


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
    stats: RunStats | None = None,
    pool: Executor | None = None,
    get_id=None,
    rerun_exceptions_locally: bool | None = None,
    pack_exception=None,
    raise_exception=None,
    dumps=None,
    loads=None,
    chunksize: int | None = None,
    **kwargs: Any,
):
    """Compute ``keys`` of a dask graph under tidegate's memory-bounded schedule.

    Use as ``x.compute(scheduler="tidegate")`` (after ``import tidegate``), ``scheduler=
    tidegate.get`` or ``dask.config.set(scheduler="tidegate")``.

    tidegate's options default to dask.config's ``tidegate.*``:

    - ``num_workers``: threads (default: dask's ``num_workers`` setting, else all cores);
    - ``memory_limit``: the process's memory (RSS, as ``top`` shows it) above its level when
      the compute starts stays within this, bytes or "4GB"; "auto" (default): half the
      memory available (inside a container or job: its cgroup's); "none": unlimited.
      Computes running at once in one process (other threads, or nested inside a task)
      share ``tidegate.memory-limit`` between them;
    - ``saturation`` (roots in flight = ceil(saturation x threads)), ``policy``
      ("tidegate" or "priority"), ``order`` ("dfs" or "dask");
    - ``validate``: check the core's invariants after every event (slow; for tests);
    - ``stats``: a :class:`tidegate.RunStats`, filled in with this run's statistics.

    dask.local / dask.threaded options:

    - ``cache``: ``{key: value}`` supplied by hand (default: dask's ``cache`` setting);
      those keys are not computed;
    - ``callbacks``: as dask's; the ``state`` they get is dask.local's, live (see
      :mod:`tidegate.live`), plus ``state["tidegate"]``;
    - ``pool``: a ``concurrent.futures`` executor with threads (default: dask's ``pool``
      setting) runs the worker loops; ``num_workers`` defaults to its size;
    - ``get_id``: called on the worker thread after each task, its value is the ``id``
      posttask callbacks receive (default: the thread's index);
    - ``rerun_exceptions_locally`` (default: dask's setting of that name): a failed task
      runs again on the calling thread, so a debugger stops inside it;
    - ``pack_exception(exc, dumps)`` on the worker and ``raise_exception(exc, tb)`` on the
      caller, as in dask.local;
    - ignored, documented: ``dumps``/``loads`` (results never leave the process) and
      ``chunksize`` (the core hands out one task per free thread, in priority order).

    Any other keyword is a TypeError, except those listed in dask.config
    ``tidegate.ignore-options`` (keywords libraries pass through ``compute()`` to any
    scheduler, e.g. xarray's ``flush``). A requested key that is not in the graph is a
    KeyError; other bad graphs (cycles, missing dependencies, uncallable functions) raise
    ValueError, all before any task runs. A failing task's exception is raised as soon as
    it is seen, with its traceback; nothing starts after it.
    """
    global last_stats
    baseline = rss_reader()()  # memory_limit bounds the process's memory above this
    if kwargs:
        ignored = dask.config.get("tidegate.ignore-options", None) or ()
        unknown = {k: v for k, v in kwargs.items() if k not in ignored}
        if unknown:
            raise _unknown_options(unknown)
    del dumps, loads, chunksize  # see the docstring: nothing to do for threads
    if pool is None and not in_worker_loop():
        # Not inside a task: a compute nested in one would wait for the pool's threads that
        # the outer compute's loops occupy (a deadlock); it gets threads of its own.
        pool = dask.config.get("pool", None)
    if pool is not None and not (isinstance(pool, Executor) and hasattr(pool, "_max_workers")):
        raise TypeError(
            f"pool must be a concurrent.futures executor running threads, got "
            f"{type(pool).__name__}: tidegate shares results between threads, not processes"
        )
    if num_workers is None and pool is not None:
        num_workers = pool._max_workers
    threads = config.num_workers(num_workers)
    if memory_limit is None:
        cap = total = _process_limit()
    else:
        cap = config.memory_limit(memory_limit)
        try:
            total = _process_limit()
        except ValueError:  # a bad tidegate.memory-limit does not void an explicit one
            total = cap
    pol = Policy(config.get("policy", policy), config.get("saturation", saturation))
    how = config.order(order)
    if rerun_exceptions_locally is None:
        rerun_exceptions_locally = dask.config.get("rerun_exceptions_locally", False)
    if cache is None:
        cache = dask.config.get("cache", None)
    recompute_roots = config.flag("recompute-roots")
    if stats is not None and not isinstance(stats, RunStats):
        raise TypeError(f"stats must be a tidegate.RunStats(), got {type(stats).__name__}")
    stats = stats if stats is not None else RunStats()
    if (collected := stats_sink()) is not None:
        collected.append(stats)
    sink = trace.sink()

    t0 = time.perf_counter()
    sizes: dict = {}
    collection = dsk  # its layers' annotations are read before optimisation
    if not isinstance(dsk, Mapping):
        sizes = chunk_sizes(dsk)
        dsk = dsk.__dask_graph__()
    dsk = convert_legacy_graph(dsk)
    cache = dict(cache or {})
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
            if start:  # a start callback may rewrite the graph (dask.cache.Cache does)
                dsk = convert_legacy_graph(dsk)
            # Ingestion allocates ~20 objects per task and frees none: the cyclic GC would
            # scan the growing graph again and again for nothing (a third of ingestion time).
            collect = gc.isenabled()
            gc.disable()
            try:
                plan = _Plan(dsk, flat, cache)
                order_graph = None
                if how == "dask":
                    order_graph = {**{k: DataNode(k, None) for k in cache if k not in dsk}, **dsk}
                graph = to_taskgraph(plan.tasks, plan.outputs, plan.supplied, how,
                                     plan.dependencies, order_graph, sizes)  # fmt: skip
                annotations.annotate_graph(graph, collection, dsk, config.current_limits())
                if sizes and cap < float("inf"):
                    _warn_outputs_over_budget(plan.outputs, dsk, sizes, cap)
                limited = cap < float("inf")
                cuts = _store_cuts(graph, plan.tasks) if limited else None
                fields = _reduction_steps(graph, plan.tasks, sizes) if limited else None
                pieces = _split_pieces(graph, plan.tasks, sizes) if limited else None
                threads, budget, floor, chunk = _fit(graph, threads, cap, cuts, fields, pieces)
                core = Scheduler(graph, [(threads, budget)], pol, validate=validate)
                if pieces is not None:  # a concatenation needs its output, whatever it guesses
                    joins = np.flatnonzero(concatenations(graph, graph.layer_size, pieces))
                    core.least = dict(zip(joins.tolist(), graph.layer_size[joins].tolist()))
                gkeys = graph.keys
                nodes = [plan.tasks[k] for k in gkeys]
                gather = _gatherer(plan, graph)
            finally:
                if collect:
                    gc.enable()
            stats.ingest_time = time.perf_counter() - t0
            data: dict = {}
            shown = dsk
            if len(gkeys) < len(plan.tasks):  # culled: callbacks see what runs, as dask's
                kept = set(gkeys)
                shown = {k: v for k, v in dsk.items() if k in kept or k not in plan.tasks}
            state = callback_state(core, shown, data, plan.supplied, cap, baseline)
            for f in start_state:
                f(dsk, state)

            def execute(i: int, values: dict) -> Any:
                return nodes[i](values)

            pre = post = None
            if pretask_cbs:
                def pre(i: int) -> None:
                    for f in pretask_cbs:
                        f(gkeys[i], dsk, state)

            if posttask_cbs:
                def post(i: int, result: Any, worker_id) -> None:
                    for f in posttask_cbs:
                        f(gkeys[i], result, dsk, state, worker_id)

            recorded = None
            if sink is not None:
                recorded = trace.Trace(meta={
                    "name": "tidegate", "body": "threads", "policy": pol.name,
                    "workers": {"local": threads},
                    "memory_limit": None if cap == float("inf") else cap,
                })  # fmt: skip
            hooks = Hooks(
                pretask=pre, posttask=post, get_id=get_id, pack_exception=pack_exception,
                raise_exception=raise_exception,
                rerun_exceptions_locally=bool(rerun_exceptions_locally), executor=pool,
                spill_dir=config.get("spill-directory"), cap=cap, total=lambda: total,
                recompute_roots=recompute_roots,
                trace=recorded, baseline=baseline, floor=floor, chunk=chunk,
                threads_asked=config.num_workers(num_workers),
            )  # fmt: skip
            try:
                results = run(core, execute, gather, hooks, stats, data)
            finally:
                last_stats = stats
                if recorded is not None:
                    sink.append(recorded)
            errored = False
        finally:
            for cb in started:
                if cb[4]:
                    cb[4](dsk, state, errored)
    values = {gkeys[i]: v for i, v in results.items()}
    values.update(plan.supplied)
    for k, t in plan.alias.items():
        if t in values:
            values[k] = values[t]
    return nested_get(keys, values)


FLOOR_SHARE = 0.25  # of memory_limit: the budget for held results never goes below it


def _store_cuts(graph: TaskGraph, tasks: Mapping) -> np.ndarray:
    """:func:`store_cut_bytes` of each task; only da.store's layers ("store-map-...", fused
    or not) are looked into: the walk costs microseconds a task."""
    cuts = np.zeros(len(graph.keys))
    stores = [i for i, g in enumerate(graph.group_names) if "store" in g.split("-")]
    for i in np.flatnonzero(np.isin(graph.group, stores)).tolist():
        cuts[i] = store_cut_bytes(tasks[graph.keys[i]])
    return cuts


# dask.array's combine and aggregate steps that concatenate their inputs: what each holds
# at once, as (fields per input, fields out), a field being one array shaped like the step's
# output. The general step (``partial_reduce(..., concatenate=True)``: sum, max and the like
# compose the reduction with ``_concatenate2``) holds its inputs and their concatenation.
# mean's and var's concatenate inside; their partials are dicts (n and total; n, total and
# moments), and var's holds all three concatenations and two temporaries per input (a
# time std of 10 MB fields, 4 per combine, peaked at 373 MB). matmul's sum adds its list up
# as it is: not here. Matched by name, as _store_call matches.
STEP_FIELDS = {"_concatenate2": (2, 1), "mean_combine": (3, 2), "mean_agg": (3, 2),
               "moment_combine": (9, 3), "moment_agg": (9, 3)}


def _step_fields(node) -> tuple[int, int]:
    """:data:`STEP_FIELDS` of a reduction step; (0, 0) where it concatenates nothing."""
    func = getattr(node, "func", None)
    parts = [func, getattr(func, "first", None), *getattr(func, "funcs", ())]
    names = (getattr(getattr(f, "func", f), "__name__", None) for f in parts)
    return max((STEP_FIELDS.get(n, (0, 0)) for n in names), default=(0, 0))


def _step(node) -> tuple[tuple[int, int], object]:
    """A task's :func:`_step_fields` and the key of the step: its own (None), or, in a task
    fused by dask (``_execute_subgraph``: a single-chunk aggregate with compute's
    finalize, keyed by a string no chunk metadata names), the inner step's."""
    best, key = _step_fields(node), None
    for inner, task in (_subgraph(node) or {}).items():
        fields = _step_fields(task)
        if fields > best:
            best, key = fields, inner
    return best, key


def _reduction_steps(graph: TaskGraph, tasks: Mapping, sizes: dict | None) -> np.ndarray:
    """Per task of a tree reduction's steps (dask's ``<name>-partial`` and
    ``<name>-aggregate`` layers, fused or not): fields held per input, fields out
    (:func:`_step`), and the bytes of one field where the task's own key names none (a
    fused step's inner layer's chunk; else 0): an (n, 3) array."""
    out = np.zeros((len(graph.keys), 3))
    steps = [i for i, g in enumerate(graph.group_names)
             if {"partial", "aggregate"}.intersection(g.split("-"))]
    for i in np.flatnonzero(np.isin(graph.group, steps)).tolist():
        fields, inner = _step(tasks[graph.keys[i]])
        out[i, :2] = fields
        if inner is not None and sizes:
            out[i, 2] = np.nan_to_num(estimate_sizes([inner], sizes)[0])
    return out


def _split_pieces(graph: TaskGraph, tasks: Mapping, sizes: dict | None) -> np.ndarray:
    """Per task of a rechunk's splits (``getitem`` of one chunk by a tuple of slices, the
    task sizeless in metadata): the bytes of its slice and 1 where that slice is a view of
    the chunk, 0 where a copy (NaN, NaN elsewhere): an (n, 2) array. dask's rechunk calls
    ``dask.array.chunk.getitem``, which copies a slice of at most half its input (a view
    would keep the whole chunk alive); the array-expression rechunk ``operator.getitem``,
    which never copies. (Unsized, topk's 6.4 MB copies were taken for views of their 128 MB
    intermediates, and its merges were sized 232 or 366 MiB against 256-262 MB held.)"""
    out = np.full((len(graph.keys), 2), np.nan)
    if not sizes or not len(graph.dep_idx):
        return out
    fused: dict = {}
    keys, first = graph.keys, graph.dep_idx[graph.dep_ptr[:-1].clip(max=len(graph.dep_idx) - 1)]
    one = (np.diff(graph.dep_ptr) == 1) & np.isnan(graph.layer_size)
    found, pieces = [], []  # plain Python per split: 91k splits took 2.4 s through numpy scalars
    for i, dep in zip(np.flatnonzero(one).tolist(), first[one].tolist()):
        node = tasks[keys[i]]
        func = getattr(node, "func", None)
        copies = _SPLITS.get((getattr(func, "__module__", None), getattr(func, "__name__", None)))
        if copies is None or len(node.args) != 2:
            continue
        index = node.args[1]
        index = index.value if isinstance(index, DataNode) else index
        shape = chunk_shape(keys[dep], sizes, fused)
        if shape is None or type(index) is not tuple or len(index) != len(shape[0]):
            continue
        dims = shape[0]
        if not all(type(s) is slice for s in index) or any(n != n for n in dims):  # NaN: unknown
            continue
        piece = math.prod(len(range(*s.indices(n))) for s, n in zip(index, dims))
        found.append(i)
        pieces.append((piece * shape[1], float(not (copies and math.prod(dims) >= 2 * piece))))
    if found:
        out[found] = pieces
    return out


# A split's function, by (module, name) as _store_call matches (dask.array is not imported
# for bags): does it copy a slice of at most half its input?
_SPLITS = {("dask.array.chunk", "getitem"): True, ("_operator", "getitem"): False}


def _fit(graph: TaskGraph, threads: int, limit: float, cuts: np.ndarray | None = None,
         fields: np.ndarray | None = None,
         pieces: np.ndarray | None = None) -> tuple[int, float, float, float]:
    """Threads, first budget for held results, its floor and the largest chunk (array
    metadata), for a run whose process memory must stay within ``limit``.

    Threads are fewer when the limit cannot hold each one's footprint (from chunk
    metadata): fewer tasks at once, not spilling and reloading to keep threads busy. A limit
    that cannot hold even one task (measure.one_thread_needs, from every task's chunk
    metadata, ``graph.layer_size``; ``cuts``: :func:`store_cut_bytes` per task; ``fields``:
    :func:`_reduction_steps`; ``pieces``: :func:`_split_pieces`) is refused, naming the
    smallest that would work.
    """
    if limit == float("inf"):
        return threads, limit, 0.0, 0.0
    _, chunk = largest_footprint(graph.size)
    usable = (1 - MARGIN) * limit
    per_thread = TASK_FOOTPRINT * chunk
    needs = one_thread_needs(graph, graph.layer_size, cuts, fields, pieces)
    i = int(np.argmax(needs)) if len(needs) else 0
    if len(needs) and needs[i] > usable:
        smallest = math.ceil(needs[i] / (1 - MARGIN) / 2**20) * 2**20  # whole MiB, up
        raise ValueError(
            f"memory_limit={format_bytes(limit)} cannot run task {graph.keys[i]!r} even on one "
            f"thread: it needs about {format_bytes(needs[i])} at once (from chunk metadata: "
            f"the data it reads, its output and temporaries). The smallest memory_limit that "
            f"would work is {format_bytes(smallest)}; or use smaller chunks"
        )
    if chunk > 0:
        threads = max(1, min(threads, int(usable // per_thread)))
    overhead = threads * (TASK_FOOTPRINT - 1) * chunk  # each thread's output and temporaries
    # Spilling cannot lower what is not held: past this, spilling more only thrashes.
    floor = max(chunk, FLOOR_SHARE * limit)
    return threads, max(floor, usable - overhead), floor, chunk


def _process_limit() -> float:
    """``tidegate.memory-limit``, measured once per group of overlapping computes."""
    return LEDGER.total(lambda: config.memory_limit(None))
