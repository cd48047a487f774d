"""What the twin runs: a dask graph, and for every task a duration and an output size.

Nothing is computed. Sizes and durations come from the caller where given (a number, a
mapping from key or group name to a value, or a callable taking the key and returning a
value or None), else from this default model:

sizes
    array chunks: the chunk's shape x itemsize, from the metadata dask keeps per layer
    (``collection_annotations``); constants (DataNodes): ``dask.sizeof`` of the value;
    anything else is unknown and counted as ``UNKNOWN_SIZE`` (reported in ``unknown``).
durations (per thread, seconds)
    constants: 0; loads (tasks whose inputs are all constants): output bytes at
    ``LOAD_RATE``; stores (group ``store*``): input bytes at ``STORE_RATE``; everything
    else: input plus output bytes at ``COMPUTE_RATE``; plus ``TASK_OVERHEAD`` per task.
    Loads slower than a 1 GB/s network and stores slower than loads, as from object storage.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from dask._task_spec import DataNode, GraphNode, convert_legacy_graph
from dask.core import flatten
from dask.sizeof import sizeof
from dask.utils import key_split

from ..bridge import chunk_sizes, estimate_sizes

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


def graph_of(x, keys=None) -> tuple[dict, list, dict]:
    """``({key: GraphNode}, output keys, {layer: (chunks, itemsize)})`` of a collection, a
    list of them, or a graph mapping (then ``keys`` is required), optimised as
    ``compute`` would; nothing is computed."""
    if isinstance(x, Mapping):
        if keys is None:
            raise TypeError("simulate(graph, keys=...): a graph mapping needs its output keys")
        layers = getattr(x, "layers", None)
        meta = {}
        for name, layer in (layers or {}).items():
            ann = getattr(layer, "collection_annotations", None) or {}
            dtype, chunks = ann.get("dtype"), ann.get("chunks")
            if chunks is not None and getattr(dtype, "itemsize", 0):
                meta[name] = (chunks, dtype.itemsize)
        return convert_legacy_graph(dict(x)), list(flatten([keys])), meta
    from dask.base import collections_to_expr

    xs = list(x) if isinstance(x, (list, tuple)) else [x]
    expr = collections_to_expr(xs, True).optimize()
    dsk = expr.__dask_graph__()
    dsk = convert_legacy_graph(dict(dsk))
    return dsk, list(flatten(expr.__dask_keys__())), chunk_sizes(expr)


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


def build_model(x, keys=None, *, sizes=None, durations=None) -> Model:
    dsk, out, meta = graph_of(x, keys)
    model = Model(dsk, out)
    order = list(dsk)
    est = estimate_sizes(order, _with_fused_names(order, meta))
    groups: dict = {}
    for i, (key, node) in enumerate(dsk.items()):
        name = key[0] if type(key) is tuple else key
        g = groups.get(name)
        if g is None:
            g = groups[name] = key_split(name)
        v = _lookup(sizes, key, g)
        if v is None:
            if est[i] == est[i]:  # not NaN
                v = est[i]
            elif type(node) is DataNode:
                v = sizeof(node.value)
            else:
                v = UNKNOWN_SIZE
                model.unknown += 1
        model.sizes[key] = int(v)
    for key, node in dsk.items():
        name = key[0] if type(key) is tuple else key
        v = _lookup(durations, key, groups[name])
        model.durations[key] = float(default_duration(key, node, groups[name], model.sizes, dsk)
                                     if v is None else v)
    return model


def default_duration(key, node: GraphNode, group: str, sizes: dict, dsk: dict) -> float:
    if type(node) is DataNode:
        return 0.0
    deps = node.dependencies
    if all(type(dsk.get(d)) is DataNode for d in deps):
        return TASK_OVERHEAD + sizes[key] / LOAD_RATE
    inputs = sum(sizes.get(d, 0) for d in deps)
    if group.startswith("store"):
        return TASK_OVERHEAD + inputs / STORE_RATE
    return TASK_OVERHEAD + (inputs + sizes[key]) / COMPUTE_RATE

