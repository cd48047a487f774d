"""Annotations that survive optimisation: read from a collection's layers *before* fusion,
carried onto the tasks that actually run.

dask keeps ``dask.annotate(...)`` on each high-level-graph layer. Its low-level optimisation
(blockwise fusion, then linear fusion, ``optimization.fuse.active``) merges tasks of
several layers into one task with a new key, and the merged layer carries no annotations
(dask/dask#7036): ``expr.__dask_annotations__()`` is empty after fusion. Here the layers
are read before optimisation, and each task of the optimised graph is given the
annotations of every original layer it contains:

- its own key's layer, the layers of the original keys that alias it (a fused task is
  renamed; dask keeps the old output key as an alias), and the layers of the original
  tasks a linear fusion put inside it (``Task.fuse`` keeps them as a subgraph);
- plus, for a blockwise layer, every upstream blockwise layer (through blockwise layers)
  that has no task left in the optimised graph: blockwise fusion absorbed it whole.

Only layer-level edges are read (``hlg.dependencies``), never the original task graph: the
cost is one pass over the optimised graph, and nothing when no layer is annotated.

Merging the members' annotations: ``priority`` the highest, ``tidegate_limit`` every limit
(a tuple of names), ``tidegate_root`` True if any member says True, else False; any other
annotation only when all annotated members agree.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Mapping

import numpy as np

from .graph import TaskGraph

PRIORITY = "priority"
LIMIT = "tidegate_limit"
ROOT = "tidegate_root"
OURS = (PRIORITY, LIMIT, ROOT)  # what the thread runtime reads


def plain(obj, name: str):
    """``obj.name`` where its class or the instance itself defines ``name``, else None;
    never through a ``__getattr__``: dask-expr's evaluates the expression's ``_meta``,
    which raises for some (``to_parquet``, ``from_delayed``: review20) and can cost."""
    if name in getattr(obj, "__dict__", ()) or any(name in vars(c) for c in type(obj).__mro__):
        try:
            return getattr(obj, name)
        except Exception:
            return None
    return None


def _hlgs(expr) -> list:
    """The high-level graphs of a collection's expression, unoptimised."""
    out, stack, seen = [], [expr], set()
    while stack:
        e = stack.pop()
        if id(e) in seen:
            continue
        seen.add(id(e))
        hlg = plain(e, "hlg")
        if hlg is not None and plain(hlg, "layers") is not None:
            out.append(hlg)
            continue
        operands = plain(e, "operands")
        layers = plain(e, "layers")
        if isinstance(layers, Mapping) and plain(e, "dependencies") is not None \
                and not callable(operands):  # fmt: skip
            out.append(e)  # a HighLevelGraph itself
            continue
        stack.extend(op for op in operands or () if plain(op, "operands") is not None
                     or plain(op, "hlg") is not None
                     or plain(op, "layers") is not None)  # fmt: skip
    return out


class Original:
    """A collection's annotated layers before optimisation: ``layers`` ``{layer name:
    {annotation: value or callable(key)}}`` (annotated ones only), ``deps`` ``{layer name:
    layer names it depends on}`` (all layers)."""

    def __init__(self, layers: dict, deps: dict, blockwise: frozenset = frozenset()):
        self.layers = layers
        self.deps = deps
        self.blockwise = blockwise  # names of Blockwise layers (what blockwise fusion merges)

    def __bool__(self) -> bool:
        return bool(self.layers)


def read(collection, kinds=None) -> Original:
    """The annotated layers of ``collection`` before any optimisation; only annotations of
    ``kinds`` (default: all)."""
    layers: dict = {}
    deps: dict = {}
    blockwise: set = set()
    for hlg in _hlgs(collection):
        for name, layer in hlg.layers.items():
            if type(layer).__name__ == "Blockwise":
                blockwise.add(name)
            ann = layer.annotations
            if ann:
                ann = {k: v for k, v in ann.items() if kinds is None or k in kinds}
                if ann:
                    layers[name] = ann
        if layers:
            for name, ds in hlg.dependencies.items():
                deps.setdefault(name, set()).update(ds)
    return Original(layers, deps if layers else {}, frozenset(blockwise))


def _name(key):
    return key[0] if type(key) is tuple else key


def _inner_keys(node) -> list:
    """Original keys a linear fusion put inside ``node`` (``Task.fuse``'s subgraph)."""
    args = getattr(node, "args", None)
    if not args or getattr(getattr(node, "func", None), "__name__", "") != "_execute_subgraph":
        return []
    inner = args[0]
    inner = getattr(inner, "value", inner)  # a DataNode around the dict
    return list(inner) if isinstance(inner, dict) else []


def members(original: Original, dsk: Mapping) -> dict:
    """``{task key of dsk: [(original key, layer name)]}`` for the tasks of the optimised
    graph ``dsk`` (``{key: GraphNode}``) that contain an annotated layer; the original key
    is the member of that layer inside the task, or None when blockwise fusion absorbed
    the layer (no key of it exists any more)."""
    from dask._task_spec import Alias

    annotated = original.layers
    deps = original.deps
    present = {_name(k) for k in dsk}  # layers with a task (or alias) left
    absorbed: dict = {}  # layer -> annotated layers blockwise fusion put into its tasks

    blockwise = original.blockwise

    def vanished_above(layer) -> list:
        got = absorbed.get(layer)
        if got is None:
            got, seen = [], {layer}
            stack = list(deps.get(layer, ())) if layer in blockwise else []
            while stack:
                up = stack.pop()
                if up in seen or up in present or up not in blockwise:
                    continue  # a layer with tasks of its own is not inside this one
                seen.add(up)
                if up in annotated:
                    got.append(up)
                stack.extend(deps.get(up, ()))
            absorbed[layer] = got
        return got

    stands: dict = {}  # task key -> original keys it stands for (itself, aliases)
    for k, node in dsk.items():
        if isinstance(node, Alias):
            t = node.target
            for _ in range(100):  # an alias of an alias
                nxt = dsk.get(t)
                if not isinstance(nxt, Alias) or nxt.target == t:
                    break
                t = nxt.target
            stands.setdefault(t, []).append(k)
    out: dict = {}
    for k, node in dsk.items():
        if isinstance(node, Alias):
            continue
        keys = [k, *stands.get(k, ()), *_inner_keys(node)]
        found = []
        for o in keys:
            layer = _name(o)
            if layer in annotated:
                found.append((o, layer))
            if layer in deps:
                found.extend((None, up) for up in vanished_above(layer))
        if found:
            out[k] = found
    return out


def merge(kind: str, values: list):
    if kind == PRIORITY:
        return max(values)
    if kind == LIMIT:
        names: list = []
        for v in values:
            for name in (v,) if isinstance(v, str) else tuple(v):
                if name not in names:
                    names.append(name)
        return tuple(sorted(names))
    if kind == ROOT:
        return any(bool(v) for v in values)
    first = values[0]
    return first if all(v == first for v in values[1:]) else None


def carry(original: Original, dsk: Mapping) -> dict[str, dict]:
    """``{annotation: {task key of dsk: merged value}}``: the original annotations carried
    onto the optimised graph's tasks (see the module's docstring for the merge)."""
    if not original:
        return {}
    out: dict[str, dict] = {}
    layers = original.layers
    for k, found in members(original, dsk).items():
        values: dict = {}
        for o, layer in found:
            for kind, v in layers[layer].items():
                if callable(v):
                    if o is None:  # absorbed whole: its key at this task's index
                        o = (layer, *k[1:]) if type(k) is tuple else layer
                    v = v(o)
                if v is not None and type(v).__name__ != "_AnnotationsTombstone":
                    values.setdefault(kind, []).append(v)
        for kind, vs in values.items():
            v = merge(kind, vs)
            if v is not None:
                out.setdefault(kind, {})[k] = v
    return out


def check_limits(limits: Mapping | None) -> dict[str, int]:
    """``{name: int >= 1}``, refused before anything runs: a limit below 1 could never
    let its tasks run."""
    out = {}
    for name, cap in dict(limits or {}).items():
        if isinstance(cap, bool) or not isinstance(cap, (int, np.integer)) or cap < 1:
            raise ValueError(
                f"tidegate limit {name!r} must be an integer >= 1 (tasks running at once), "
                f"got {cap!r}"
            )
        out[str(name)] = int(cap)
    return out


def apply(graph: TaskGraph, carried: Mapping[str, Mapping], limits: Mapping | None = None) -> None:
    """Set the TaskGraph's user priority, limits and root overrides from ``carried``
    (``{annotation: {key: value}}`` over its keys; keys not in the graph are ignored).

    ``limits``: ``{name: tasks running at once}``; an annotated name without a limit runs
    unlimited (warned once per compute: it is likely a typo)."""
    caps = check_limits(limits)
    index = None

    def positions(d: Mapping) -> Iterable[tuple[int, object]]:
        nonlocal index
        if index is None:
            index = {k: i for i, k in enumerate(graph.keys)}
        for k, v in d.items():
            i = index.get(k)
            if i is not None:
                yield i, v

    prio = carried.get(PRIORITY)
    if prio:
        user = np.zeros(len(graph))
        for i, v in positions(prio):
            try:
                user[i] = float(v)
            except (TypeError, ValueError):
                raise ValueError(f"priority annotation must be a number, got {v!r}") from None
            if math.isnan(user[i]):
                raise ValueError("priority annotation must be a number, got nan")
        graph.set_user_priority(user)
    lim = carried.get(LIMIT)
    if lim:
        per_task: dict[int, tuple[str, ...]] = {}
        unknown: set = set()
        for i, v in positions(lim):
            names = merge(LIMIT, [v])
            unknown.update(n for n in names if n not in caps)
            names = tuple(n for n in names if n in caps)
            if names:
                per_task[i] = names
        if unknown:
            warnings.warn(
                f"tidegate_limit names without a limit in tidegate.limits run unlimited: "
                f"{', '.join(sorted(map(str, unknown)))}",
                RuntimeWarning, stacklevel=3,
            )  # fmt: skip
        graph.set_limits(per_task, caps)
    root = carried.get(ROOT)
    if root:
        r = graph.root.copy()
        for i, v in positions(root):
            r[i] = bool(v)
        graph.root = r


def annotate_graph(graph: TaskGraph, collection, dsk: Mapping, limits: Mapping | None) -> None:
    """The bridge's one call: read ``collection``'s layers (before optimisation; None for a
    plain dict graph), carry them onto ``dsk`` (converted, optimised) and apply to graph.
    Limits are checked even when nothing is annotated (a bad config fails early)."""
    caps = check_limits(limits)
    if collection is None:
        return
    original = read(collection, OURS)
    if original:
        apply(graph, carry(original, dsk), caps)

