"""What the twin runs: a dask graph, and for every task a duration and an output size.

Nothing is computed. Sizes and durations come from the caller where given (a number, a
mapping from key or group name to a value, or a callable taking the key and returning a
value or None), else from this default model:

sizes
    array chunks: the chunk's shape x itemsize, from the metadata dask keeps per layer
    (``collection_annotations``); constants (DataNodes): ``dask.sizeof`` of the value;
    anything else is unknown and counted as ``UNKNOWN_SIZE`` (reported in ``unknown``).
durations (per thread, seconds)
    constants: 0. Otherwise ``TASK_OVERHEAD`` plus, for each function the task calls
    (several when dask fused a chain into one task), the task's chunk bytes at a rate:
    array loads (``getter``) at ``LOAD_RATE``, stores (``store_chunk``) at ``STORE_RATE``,
    anything else at ``COMPUTE_RATE``. A task whose inputs are all constants and that calls
    no getter is a load of its output. Chunk bytes: the output's size, else the largest
    chunk of the layers fused into it, else its inputs' bytes; and at least its largest
    input's bytes (a reduction, or an overlap's concatenate-and-compute, reads its whole
    input however small its output). Slices never cost their input's bytes: Python's
    ``getitem`` by slices and integers (a halo: numpy returns a view) costs
    ``TASK_OVERHEAD`` only; dask's own ``chunk.getitem`` (a rechunk's split) copies a
    selection of at most half its input, which costs its output's bytes. A slice's output, when the
    array metadata does not give it, is sized from the sliced chunk's shape.
    Loads slower than a 1 GB/s network and stores slower than loads, as from object storage.
"""

from __future__ import annotations

import functools
import math
import operator
from collections.abc import Mapping
from dataclasses import dataclass, field

import dask.array.chunk
from dask._task_spec import Alias, DataNode, GraphNode, Task, convert_legacy_graph
from dask.base import collections_to_expr
from dask.core import flatten
from dask.sizeof import sizeof
from dask.utils import key_split

from ..bridge import chunk_shape, chunk_sizes, estimate_sizes
from . import collector
from .hashing import stable_hash, stable_order

UNKNOWN_SIZE = 1024  # a small Python object (a store's None, a scalar)
LOAD_RATE = 200e6  # bytes/s per thread
STORE_RATE = 100e6
COMPUTE_RATE = 1e9
TASK_OVERHEAD = 0.001


@dataclass
class Model:
    """The graph and, per key, output bytes and run time."""

    dsk: dict  # {key: GraphNode}
    keys: list  # outputs, flat
    sizes: dict = field(default_factory=dict)
    durations: dict = field(default_factory=dict)
    unknown: int = 0  # tasks whose size nobody knew (counted as UNKNOWN_SIZE)
    annotations: dict = field(default_factory=dict)  # {kind: {key: value}}, as a client sends
    _priorities: dict | None = None
    _hashes: dict | None = None

    @property
    def priorities(self) -> dict:
        """dask.order's ranks, as the client sends them (ties broken alike in every
        process, see :func:`.hashing.stable_order`); computed once for all policies."""
        if self._priorities is None:
            with collector.paused():
                self._priorities = stable_order(self.dsk)
            collector.collect_young()
        return self._priorities

    @property
    def hashes(self) -> dict:
        """``{key: stable_hash(key)}``: the hash the scheduler's and every worker's
        TaskState of a key is built from (see :mod:`.hashing`), computed once."""
        if self._hashes is None:
            with collector.paused():
                self._hashes = {key: stable_hash(key) for key in self.dsk}
        return self._hashes


def graph_of(x, keys=None, finalize: bool = False) -> tuple[dict, list, dict, dict]:
    """``({key: GraphNode}, output keys, {layer: (chunks, itemsize)}, annotations)`` of a
    collection, a list of them, or a graph mapping (then ``keys`` is required), optimised as
    ``compute`` would; nothing is computed. Annotations (``{kind: {key: value}}``) are read
    before optimisation and carried onto the fused tasks, as the bridge and the plugin do.

    ``finalize``: the graph that ``dask.compute`` / ``Client.compute`` send for collections,
    with each collection's final task (``finalize-...``, over all of its chunks: for a
    ``da.store`` every per-chunk store, whose ``None`` waits there); without it the chunks
    are the outputs, as ``persist`` would have them."""
    if isinstance(x, Mapping):
        if keys is None:
            raise TypeError("simulate(graph, keys=...): a graph mapping needs its output keys")
        if finalize:
            raise TypeError("finalize applies to collections; a graph mapping states its own")
        return convert_legacy_graph(dict(x)), list(flatten([keys])), _layer_meta(x), {}
    xs = list(x) if isinstance(x, (list, tuple)) else [x]
    from ..annotations import carry, read

    original = collections_to_expr(xs, True)
    if finalize:
        from dask._expr import FinalizeCompute

        expr = FinalizeCompute(original).optimize()  # as dask.compute and Client.compute
    else:
        expr = original.optimize()
    dsk = convert_legacy_graph(dict(expr.__dask_graph__()))
    out = list(flatten(expr.__dask_keys__()))
    if finalize:
        out = _stable_final_keys(dsk, out)
    dsk = _canonical(dsk)
    return dsk, out, chunk_sizes(expr), carry(read(original), dsk)


def _stable_final_keys(dsk: dict, out: list) -> list:
    """dask names a final task by a token of the whole expression, which differs per call
    (per compute, in dask too); the twin names it by its dependencies' keys, so that a
    graph gives one order and one trace in every process."""
    from dask.base import tokenize

    renamed = []
    for k in out:
        if isinstance(k, str) and k.startswith("finalize-"):
            new = f"{key_split(k)}-{tokenize(sorted(map(str, dsk[k].dependencies)))}"
            dsk[new] = dsk.pop(k).substitute({}, key=new)
            k = new
        renamed.append(k)
    return renamed


def _canonical(dsk: dict) -> dict:
    """The graph in one order for every process: by the keys' text. dask's optimisation
    emits some graphs (rechunk-add's splits) in an order that follows PYTHONHASHSEED, and
    that order reaches dask.order's tie-breaks and the scheduler: the same collection gave
    queuing 15.2-17.3 GB moved across five seeds. (0.3 s per 150k keys; a row-major
    order by block index cost 2.6.)"""
    return {k: dsk[k] for k in sorted(dsk, key=str)}


def _layer_meta(graph) -> dict:
    """``{layer: (chunks, itemsize)}`` of a HighLevelGraph's array layers."""
    meta = {}
    for name, layer in (getattr(graph, "layers", None) or {}).items():
        ann = getattr(layer, "collection_annotations", None) or {}
        dtype, chunks = ann.get("dtype"), ann.get("chunks")
        if chunks is not None and getattr(dtype, "itemsize", 0):
            meta[name] = (chunks, dtype.itemsize)
    return meta


def _with_fused_names(keys, meta: dict) -> dict:
    """Blockwise fusion names a fused layer ``"a-b-<token of b>"``; its chunks are b's."""
    if not meta:
        return meta
    by_token = {name.rsplit("-", 1)[-1]: v for name, v in meta.items()}
    out = dict(meta)
    for k in keys:
        if type(k) is tuple and k[0] not in out and isinstance(k[0], str):
            v = by_token.get(k[0].rsplit("-", 1)[-1])
            if v is not None:
                out[k[0]] = v
    return out


def _lookup(spec, key, group):
    """The user's value for a key: number, mapping by key then group, or callable."""
    if spec is None:
        return None
    if isinstance(spec, (int, float)) and not isinstance(spec, bool):
        return spec
    if isinstance(spec, Mapping):
        v = spec.get(key)
        return spec.get(group) if v is None else v
    if callable(spec):
        return spec(key)
    raise TypeError(f"sizes/durations must be a number, a mapping or a callable, not {spec!r}")


def build_model(x, keys=None, *, sizes=None, durations=None, finalize: bool = False) -> Model:
    """The :class:`Model` of ``x`` (see :func:`graph_of`, also for ``finalize``)."""
    with collector.paused(keep=True):  # the graph's conversion makes no cyclic garbage
        return _build_model(x, keys, sizes, durations, finalize)


def _build_model(x, keys, sizes, durations, finalize=False) -> Model:
    dsk, out, meta, annotations = graph_of(x, keys, finalize)
    model = Model(dsk, out, annotations=annotations)
    order = list(dsk)
    meta = _with_fused_names(order, meta)
    est = estimate_sizes(order, meta)
    fused: dict = {}  # (chunk_shape's cache)
    groups: dict = {}
    unknown: set = set()
    for i, (key, node) in enumerate(dsk.items()):
        name = key[0] if type(key) is tuple else key
        g = groups.get(name)
        if g is None:
            g = groups[name] = key_split(name)
        v = _lookup(sizes, key, g)
        if v is None:
            if est[i] == est[i]:  # not NaN
                v = est[i]
                if type(node) is Task:
                    v = v // _reduced_by(key, node, meta, fused) * _arrays_returned(node)
            elif type(node) is DataNode:
                v = sizeof(node.value)
            elif (v := _view_bytes(node, meta)) is not None:
                pass
            else:
                v = UNKNOWN_SIZE
                unknown.add(key)
        model.sizes[key] = int(v)
    model.unknown = len(unknown)
    for key, node in dsk.items():
        name = key[0] if type(key) is tuple else key
        v = _lookup(durations, key, groups[name])
        if v is None:
            v = default_duration(key, node, model.sizes, dsk, meta, unknown)
        model.durations[key] = float(v)
    return model


def _reduced_by(key, node, meta: dict, fused: dict) -> int:
    """By how much a reduction's first step shrinks its one input chunk, where its layer's
    metadata gives it the input's shape (1: it does not, or it is no such step). Dask's
    reductions (``da.mean``'s ``mean_chunk``, ``chunk.sum``, called with ``axis`` and
    ``keepdims=True``) keep the reduced axes at length 1, but the layer's chunks (what
    the metadata holds) are the input's: the zarr anomaly's chunk-mean of 4 time steps
    was sized 32 MB, the LocalCluster measures 8 MB (8,000,328 B)."""
    func, kw = node.func, node.kwargs
    if type(func) is functools.partial:
        kw = {**func.keywords, **kw}
    if kw.get("keepdims") is not True or "axis" not in kw:
        return 1
    deps = node.dependencies
    if len(deps) != 1:
        return 1
    (dep,) = deps
    own, src = chunk_shape(key, meta, fused), chunk_shape(dep, meta, fused)
    if own is None or src is None or own != src:
        return 1
    axis = kw["axis"]
    axis = (axis,) if type(axis) is int else tuple(axis or ())
    shape = src[0]
    n = math.prod(shape[a] for a in axis if type(a) is int and -len(shape) <= a < len(shape))
    return max(1, n)


def _arrays_returned(node) -> int:
    """How many arrays of its block's size a step of dask's mean or variance returns (a
    dict of them, not the one array its layer's metadata describes), else 1.
    ``mean_chunk``: the sum, its count a zero-stride view of one number (8 B), unless
    counted per element (``nanmean``'s ``nannumel``); ``mean_combine``: sum and count,
    the count made whole by adding its inputs' views (the zarr anomaly's partial mean of
    4 chunk-means: 16,000,320 B on the LocalCluster, 8 MB in the twin before);
    ``moment_chunk`` / ``moment_combine`` (``var``, ``std``): sum, count (cast to int64:
    whole) and the ``order - 1`` central moments. Measured with ``dask.sizeof`` on the
    sync scheduler (tests/test_sim_model.py)."""
    func, kw = node.func, node.kwargs
    if type(func) is functools.partial:
        kw = {**func.keywords, **kw}
        func = func.func
    name = getattr(func, "__name__", "")
    if name == "mean_chunk":
        return 2 if "numel" in kw else 1
    if name == "mean_combine":
        return 2
    if name in ("moment_chunk", "moment_combine"):
        order = kw.get("order", 2)
        return 1 + order if type(order) is int and order >= 2 else 1
    return 1


LOADS = {"getter", "getter_inline", "getter_nofancy"}
GETITEMS = (operator.getitem, dask.array.chunk.getitem)
STORES = {"store_chunk", "load_store_chunk", "load_chunk"}


def default_duration(key, node: GraphNode, sizes: dict, dsk: dict, meta: dict | None = None,
                     unknown: set = frozenset()) -> float:
    if type(node) is DataNode:
        return 0.0
    sliced = _basic_index(node)
    if sliced is not None:  # a view (measured 0.02 ms at 20 MB), never its input's bytes
        out = sizes[key] if key not in unknown else 0
        whole = sizes.get(sliced[0], 0) if sliced[0] not in unknown else math.inf
        copies = node.func is not operator.getitem and 2 * out <= whole
        return TASK_OVERHEAD + (out / COMPUTE_RATE if copies else 0.0)
    funcs, layers = _calls(node)
    size = sizes[key] if key not in unknown else 0
    if not size and meta:
        size = max((_chunk_bytes(meta[n], key) for n in layers if n in meta), default=0)
    deps = node.dependencies
    known = [sizes.get(d, 0) for d in deps if d not in unknown]
    if not size:
        size = sum(known)
    size = max(size, max(known, default=0))  # it reads its largest input at least once
    loads = sum(f in LOADS for f in funcs)
    stores = sum(f in STORES for f in funcs)
    compute = len(funcs) - loads - stores
    if not loads and all(type(dsk.get(d)) is DataNode for d in deps):
        loads, compute = 1, max(0, compute - 1)  # a load of its own kind (no array getter)
    return TASK_OVERHEAD + size * (loads / LOAD_RATE + stores / STORE_RATE + compute / COMPUTE_RATE)


def _basic_index(node):
    """``(input key, index)`` of a ``getitem`` (Python's or dask's) by slices and
    integers, else None."""
    if getattr(node, "func", None) not in GETITEMS or len(node.args) != 2:
        return None
    src, index = node.args
    src = getattr(src, "target", None) if type(src) is Alias else getattr(src, "key", None)
    index = index if isinstance(index, tuple) else (index,)
    if src is None or not all(isinstance(i, (slice, int)) for i in index):
        return None
    return src, index


def _view_bytes(node, meta: dict) -> int | None:
    """Output bytes of a basic ``getitem`` of an array chunk whose shape the metadata
    gives (an overlap's halo: a row of its block); None if unknown."""
    got = _basic_index(node)
    if got is None or not meta:
        return None
    src, index = got
    if type(src) is not tuple or src[0] not in meta:
        return None
    chunks, itemsize = meta[src[0]]
    if len(src) - 1 != len(chunks) or len(index) > len(chunks):
        return None
    n = itemsize
    for dim, c in enumerate(chunks):
        try:
            length = c[src[1 + dim]]
        except (IndexError, TypeError):
            return None
        i = index[dim] if dim < len(index) else slice(None)
        n *= 1 if isinstance(i, int) else len(range(*i.indices(length)))
    return int(n)


def _calls(node) -> tuple[list[str], list[str]]:
    """Names of the functions a task calls, and the layers fused into it."""
    func = getattr(node, "func", None)
    name = getattr(func, "__name__", "")
    if name == "_execute_subgraph" and node.args and isinstance(node.args[0], Mapping):
        inner = node.args[0]
        funcs = [getattr(getattr(t, "func", None), "__name__", "") for t in inner.values()]
        layers = [k.rsplit("_.", 1)[0] if "_." in k else k for k in inner if isinstance(k, str)]
        return funcs, layers
    return [name], []


def _chunk_bytes(meta, key=None) -> int:
    """Bytes of ``key``'s block of a layer with these chunks, where the key's indices
    name one (a fused store of an edge block costs its own bytes: rechunk-add's
    one-row edge stores were timed as full 190 MB blocks, 2.09 s instead of 2 ms, a
    third of its stores); else of the layer's largest block."""
    chunks, itemsize = meta
    n = itemsize
    idx = key[1:] if type(key) is tuple else ()
    if len(idx) == len(chunks) and all(
        type(i) is int and 0 <= i < len(c) for i, c in zip(idx, chunks)
    ):
        for i, c in zip(idx, chunks):
            n *= c[i]
        return int(n)
    for c in chunks:
        n *= max(c) if c else 0
    return int(n)
