"""Annotations that survive optimisation: read from a collection's layers *before* fusion,
carried onto the tasks that actually run.

dask keeps ``dask.annotate(...)`` on each high-level-graph layer. Its low-level optimisation
(blockwise fusion, then linear fusion, ``optimization.fuse.active``) merges tasks of
several layers into one task with a new key, and the merged layer carries no annotations
(dask/dask#7036): ``expr.__dask_annotations__()`` is empty after fusion. Here the layers
are read before optimisation, and each task of the optimised graph is given the
annotations of every original task it contains:

- a task of the optimised graph whose key was in the original graph stands for that
  task; a renamed (fused) task stands for the original keys that alias it;
- it contains those tasks plus every upstream original task that no longer exists in the
  optimised graph (it was fused into this one, perhaps into several: each gets it).

Merging the members' annotations: ``priority`` the highest, ``tidegate_limit`` every limit
(a tuple of names), ``tidegate_root`` True if any member says True, else False if any says
False; any other annotation only when all annotated members agree.

Costs nothing when no layer is annotated (one look at each layer's ``annotations``).
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


def _hlgs(expr) -> list:
    """The high-level graphs of a collection's expression, unoptimised."""
    out, stack, seen = [], [expr], set()
    while stack:
        e = stack.pop()
        if id(e) in seen:
            continue
        seen.add(id(e))
        hlg = getattr(e, "hlg", None)
        if hlg is not None and hasattr(hlg, "layers"):
            out.append(hlg)
            continue
        if hasattr(e, "layers") and hasattr(e, "dependencies") and not callable(
            getattr(e, "operands", None)
        ) and isinstance(getattr(e, "layers", None), Mapping):
            out.append(e)  # a HighLevelGraph itself
            continue
        stack.extend(op for op in getattr(e, "operands", ()) if hasattr(op, "operands")
                     or hasattr(op, "hlg") or hasattr(op, "layers"))  # fmt: skip
    return out


class Original:
    """The annotations of a collection's original (unoptimised) tasks and their edges."""

    def __init__(self, by_kind: dict[str, dict], dependencies: dict):
        self.by_kind = by_kind  # {annotation: {original key: value}}
        self.dependencies = dependencies  # {original key: set of original keys}

    def __bool__(self) -> bool:
        return any(self.by_kind.values())


def read(collection) -> Original:
    """Annotations per original key, from the layers before any optimisation."""
    by_kind: dict[str, dict] = {}
    deps: dict = {}
    for hlg in _hlgs(collection):
        annotated = [layer for layer in hlg.layers.values() if layer.annotations]
        if not annotated:
            continue
        for layer in annotated:
            for kind, value in layer.annotations.items():
                d = by_kind.setdefault(kind, {})
                for k in layer.get_output_keys():
                    v = value(k) if callable(value) else value
                    if v is not None and type(v).__name__ != "_AnnotationsTombstone":
                        d[k] = v
        deps.update(hlg.get_all_dependencies())  # materialises: only when annotated
    return Original({k: v for k, v in by_kind.items() if v}, deps)


def members(original: Original, dsk: Mapping) -> dict:
    """``{task key of dsk: set of original keys it contains}`` for the tasks of the
    optimised graph ``dsk`` (``{key: GraphNode}``) that contain an annotated original task."""
    from dask._task_spec import Alias

    annotated = set()
    for d in original.by_kind.values():
        annotated.update(d)
    odeps = original.dependencies
    # Which original keys each task of dsk stands for: itself, and the aliases pointing at it.
    stands: dict = {}
    for k, node in dsk.items():
        if isinstance(node, Alias):
            t = node.target
            while t in dsk and isinstance(dsk[t], Alias) and dsk[t].target != t:
                t = dsk[t].target
            stands.setdefault(t, []).append(k)
        else:
            stands.setdefault(k, []).append(k)
    out: dict = {}
    for k, node in dsk.items():
        if isinstance(node, Alias):
            continue
        inside: set = set()
        stack = [o for o in stands.get(k, ()) if o in odeps or o in annotated]
        while stack:
            o = stack.pop()
            if o in inside:
                continue
            inside.add(o)
            for d in odeps.get(o, ()):
                if d not in dsk and d not in inside:
                    stack.append(d)  # gone from the optimised graph: fused into k
        if inside & annotated:
            out[k] = inside
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
    for k, inside in members(original, dsk).items():
        for kind, d in original.by_kind.items():
            values = [d[o] for o in inside if o in d]
            if values:
                v = merge(kind, values)
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
    original = read(collection)
    if original:
        apply(graph, carry(original, dsk), caps)

