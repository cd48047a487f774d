"""TaskGraph: a compact integer DAG, built once per compute. Knows nothing of dask.

Tasks are numbered 0..n-1. Dependencies and dependents are CSR arrays (``ptr``/``idx``),
so a graph of 100,000 tasks costs a few numpy arrays, not 100,000 Python sets.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np


def _needed(ptr: np.ndarray, idx: np.ndarray, outputs: np.ndarray, n: int) -> np.ndarray | None:
    """The tasks ``outputs`` need, in graph order; None when that is every task. Unneeded
    tasks are closed under dependents, so some unneeded task has none: when every task
    has a dependent or is an output, all are needed (the common case: no walk)."""
    needed = np.zeros(n, dtype=bool)
    needed[idx] = True
    needed[outputs] = True
    if needed.all():
        return None
    needed[:] = False
    needed[outputs] = True
    frontier = np.unique(outputs)
    while frontier.size:  # level by level, in numpy
        _, at = _rows(ptr, frontier)
        if not at.size:
            break
        step = idx[at]
        frontier = np.unique(step[~needed[step]])
        needed[frontier] = True
    return np.flatnonzero(needed)


def _rows(ptr: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """CSR rows ``rows``: their lengths and their entries' positions, row after row."""
    starts = ptr[rows]
    lens = ptr[rows + 1] - starts
    return lens, np.repeat(starts - np.cumsum(lens) + lens, lens) + np.arange(int(lens.sum()))


def _csr(lists: Sequence[Sequence[int]]) -> tuple[np.ndarray, np.ndarray]:
    lengths = np.fromiter((len(x) for x in lists), dtype=np.int64, count=len(lists))
    ptr = np.zeros(len(lists) + 1, dtype=np.int64)
    np.cumsum(lengths, out=ptr[1:])
    idx = np.fromiter((d for x in lists for d in x), dtype=np.int64, count=int(ptr[-1]))
    return ptr, idx


def _invert(ptr: np.ndarray, idx: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Dependents CSR from dependencies CSR (stable: dependents in ascending index)."""
    owners = np.repeat(np.arange(n, dtype=np.int64), np.diff(ptr))
    perm = np.argsort(idx, kind="stable")
    rptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(idx, minlength=n), out=rptr[1:])
    return rptr, owners[perm]


def _short(keys: Iterable, limit: int = 5) -> str:
    keys = list(keys)
    shown = ", ".join(repr(k) for k in keys[:limit])
    return shown + (f" ... ({len(keys)} in all)" if len(keys) > limit else "")


@dataclass(eq=False)
class TaskGraph:
    """An integer DAG with per-task metadata.

    ``priority[i]`` is a rank (0 runs first); ``root[i]`` marks tasks that load data;
    ``constant[i]`` marks data embedded in the graph (a DataNode: a store handle, an embedded
    chunk), which the policy does not count as a consumer's input (``Scheduler``'s single
    inputs and chains, as the dask plugin counts them); ``size[i]`` and ``duration[i]`` are
    estimates, NaN where unknown; ``group[i]`` indexes ``group_names`` (used for reports and size
    estimates, never to decide rootness).
    """

    keys: list
    dep_ptr: np.ndarray
    dep_idx: np.ndarray
    outputs: np.ndarray
    dependent_ptr: np.ndarray = field(init=False)
    dependent_idx: np.ndarray = field(init=False)
    priority: np.ndarray = field(init=False)
    root: np.ndarray = field(init=False)
    constant: np.ndarray = field(init=False)
    # Tasks that return the same data when run again: dask's reads of a stored or embedded
    # array (from_zarr, from_array, xarray's loaders), alone or fused with dask's and
    # numpy's functions (set by bridge.to_taskgraph; none by default).
    rereadable: np.ndarray = field(init=False)
    size: np.ndarray = field(init=False)
    # Every task's estimate from its layer's chunk metadata (NaN where none tells); ``size``
    # keeps only the roots' (see bridge.to_taskgraph), this one sizes a limit's floor.
    layer_size: np.ndarray = field(init=False)
    duration: np.ndarray = field(init=False)
    group: np.ndarray = field(init=False)
    group_names: list = field(init=False, default_factory=list)
    # Annotations (see annotations.py): ``user_priority[i]`` (higher runs first, ahead of
    # the graph order); ``limited[i]``: the concurrency limits task i counts against,
    # sparse; ``limits``: ``{name: tasks running at once}``.
    user_priority: np.ndarray | None = field(init=False, default=None)
    limited: dict = field(init=False, default_factory=dict)
    limits: dict = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        n = len(self.keys)
        self.dependent_ptr, self.dependent_idx = _invert(self.dep_ptr, self.dep_idx, n)
        self.priority = np.arange(n, dtype=np.int64)
        self.root = np.diff(self.dep_ptr) == 0
        self.constant = np.zeros(n, dtype=bool)
        self.rereadable = np.zeros(n, dtype=bool)
        self.size = np.full(n, np.nan)
        self.layer_size = np.full(n, np.nan)
        self.duration = np.full(n, np.nan)
        self.group = np.zeros(n, dtype=np.int64)
        self.group_names = [""]

    # -- construction -------------------------------------------------------------------
    @classmethod
    def from_dependencies(
        cls,
        dependencies: dict[Hashable, Iterable[Hashable]],
        outputs: Iterable[Hashable],
        supplied: Iterable[Hashable] = (),
        cull: bool = False,
    ) -> TaskGraph:
        """Build from ``{key: dependency keys}``; validates before anything runs.

        Raises ValueError naming the keys when a dependency is neither a task nor
        ``supplied``, a requested output is absent, or the graph has a cycle.
        Supplied keys are not tasks; edges to them are dropped here (the runtime
        hands their values in). ``cull``: tasks no output needs are left out, as dask's
        schedulers cull (``get``: a raw graph, or one computed with ``optimize_graph=False``,
        may hold far more than the keys asked for, and a failing task there must not fail
        the compute); else they run, after the outputs' (the core takes any graph).
        """
        keys = list(dependencies)
        index = {k: i for i, k in enumerate(keys)}
        supplied = set(supplied)
        missing: dict = {}
        deps: list[list[int]] = []
        for k in keys:
            row = []
            for d in dependencies[k]:
                i = index.get(d)
                if i is not None:
                    row.append(i)
                elif d not in supplied:
                    missing.setdefault(d, k)
            row.sort()  # graph order: deterministic, and usually chunk order
            deps.append(row)
        if missing:
            detail = "; ".join(f"{d!r} (needed by {k!r})" for d, k in list(missing.items())[:5])
            raise ValueError(
                f"{len(missing)} dependencies are neither in the graph nor supplied: {detail}"
            )
        outs = list(outputs)
        absent = [k for k in outs if k not in index and k not in supplied]
        if absent:
            raise ValueError(f"requested keys are not in the graph: {_short(absent)}")
        ptr, idx = _csr(deps)
        wanted = np.fromiter((index[k] for k in outs if k in index), np.int64)
        needed = _needed(ptr, idx, wanted, len(keys)) if cull else None
        if needed is not None:
            # A cycle lies wholly inside or outside the needed tasks: refuse one outside as
            # dask does (its order() sees the whole graph); dfs_order below, one inside.
            keep = np.zeros(len(keys), dtype=bool)
            keep[needed] = True
            done = bytearray(keep.astype(np.uint8) * 2)  # (the walk never enters these)
            _walk(ptr.tolist(), idx.tolist(), np.flatnonzero(~keep).tolist(), done, keys)
            # The needed tasks' CSR rows, renumbered in graph order (rows stay sorted).
            pos = np.full(len(keys), -1, dtype=np.int64)
            pos[needed] = np.arange(len(needed), dtype=np.int64)
            lens, at = _rows(ptr, needed)
            ptr = np.zeros(len(needed) + 1, dtype=np.int64)
            np.cumsum(lens, out=ptr[1:])
            idx, wanted = pos[idx[at]], pos[wanted]
            keys = [keys[i] for i in needed.tolist()]
        graph = cls(keys, ptr, idx, wanted)
        graph.priority = dfs_order(graph)  # also refuses cycles
        return graph

    # -- queries ------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.keys)

    def dependencies(self, i: int) -> list[int]:
        return self.dep_idx[self.dep_ptr[i] : self.dep_ptr[i + 1]].tolist()

    def dependents(self, i: int) -> list[int]:
        return self.dependent_idx[self.dependent_ptr[i] : self.dependent_ptr[i + 1]].tolist()

    @property
    def ndependencies(self) -> np.ndarray:
        return np.diff(self.dep_ptr)

    @property
    def ndependents(self) -> np.ndarray:
        return np.diff(self.dependent_ptr)

    def joins(self) -> np.ndarray:
        """Tasks joining pieces of one array: two or more inputs besides constants, all of
        one array (a tuple key's name, else the task's group: dask's task groups, as the
        plugin sees them), e.g. a rechunk's merge (``policy.joins_pieces``). O(edges)."""
        n = len(self)
        owner = np.repeat(np.arange(n), np.diff(self.dep_ptr))
        data = ~self.constant[self.dep_idx]
        out = np.bincount(owner[data], minlength=n) >= 2
        if not out.any():
            return out
        edges = data & out[owner]
        inputs, inverse = np.unique(self.dep_idx[edges], return_inverse=True)
        names: dict = {}
        keys, group, group_names = self.keys, self.group, self.group_names
        ids = np.fromiter(
            (names.setdefault(keys[j][0] if type(keys[j]) is tuple else group_names[group[j]],
                              len(names)) for j in inputs.tolist()),
            np.int64, len(inputs),
        )[inverse]  # fmt: skip
        lo = np.full(n, len(names), np.int64)
        hi = np.full(n, -1, np.int64)
        np.minimum.at(lo, owner[edges], ids)
        np.maximum.at(hi, owner[edges], ids)
        return out & (lo == hi)

    def set_groups(self, names: Sequence[str]) -> None:
        uniq, inverse = np.unique(np.asarray(names, dtype=object).astype(str), return_inverse=True)
        self.group_names = uniq.tolist()
        self.group = inverse.astype(np.int64)

    def set_order(self, ranks: np.ndarray) -> None:
        ranks = np.asarray(ranks, dtype=np.int64)
        if ranks.shape != (len(self),):
            raise ValueError("one rank per task is needed")
        self.priority = ranks
        if self.user_priority is not None:
            self.set_user_priority(self.user_priority)

    def set_user_priority(self, user) -> None:
        """Annotated priorities (higher first) become the first sort key of the order; the
        graph order breaks ties. dask's own order for ``priority`` annotations, made strict."""
        user = np.asarray(user, dtype=float)
        if user.shape != (len(self),):
            raise ValueError("one user priority per task is needed")
        self.user_priority = user
        if not user.any():
            return
        rank = np.empty(len(self), dtype=np.int64)
        rank[np.lexsort((self.priority, -user))] = np.arange(len(self), dtype=np.int64)
        self.priority = rank

    def set_limits(self, limited: dict, limits: dict) -> None:
        """``limited``: ``{task: (limit names)}``; ``limits``: ``{name: int >= 1}``. Every
        name used must have a limit: a task is never held by a limit nobody set."""
        for i, names in limited.items():
            missing = [n for n in names if n not in limits]
            if missing:
                raise ValueError(f"task {self.keys[i]!r}: no limit set for {missing}")
        for name, cap in limits.items():
            if int(cap) < 1:
                raise ValueError(f"limit {name!r} must be >= 1, got {cap!r}")
        self.limited = {int(i): tuple(names) for i, names in limited.items() if names}
        self.limits = {n: int(c) for n, c in limits.items()}


def dfs_order(graph: TaskGraph) -> np.ndarray:
    """Depth-first post-order from the requested outputs: each task runs right after its inputs.

    Dependencies are visited in graph order (chunk order for arrays), so the inputs of one
    consumer are adjacent in priority and the consumer follows them at once: dask's classic
    "finish what you started" order, at about a µs per edge. The same walk refuses cycles
    (an edge back to a task still on the stack). dask.order does better on some tricky
    shapes at several times the cost; ``order="dask"`` selects it.
    """
    n = len(graph)
    # Outputs first in the order asked, then sinks nobody asked for (side effects), then
    # anything left, which can only be part of a cycle.
    starts = graph.outputs.tolist()
    starts += np.flatnonzero(graph.ndependents == 0).tolist()
    starts += range(n)
    rank = _walk(graph.dep_ptr.tolist(), graph.dep_idx.tolist(), starts, bytearray(n),
                 graph.keys)
    return np.asarray(rank, dtype=np.int64)


def _walk(ptr: list, idx: list, starts: Iterable[int], color: bytearray, keys: list) -> list:
    """dfs_order's walk from ``starts``: ranks (post-order) of the tasks it reaches, 0 for
    others; ValueError naming a cycle. ``color[i]``: 0 unseen, 1 on the stack, 2 ranked
    (a caller may mark tasks 2 beforehand: the walk never enters them)."""
    rank = [0] * len(color)
    pos = 0
    for start in starts:
        if color[start]:
            continue
        color[start] = 1
        stack = [start]
        cursor = [ptr[start]]
        while stack:
            node = stack[-1]
            c = cursor[-1]
            end = ptr[node + 1]
            while c < end and color[idx[c]] == 2:
                c += 1
            if c < end:
                child = idx[c]
                if color[child] == 1:
                    cycle = stack[stack.index(child) :] + [child]
                    path = " <- ".join(repr(keys[i]) for i in cycle)
                    raise ValueError(f"the graph has a cycle: {path} (each needs the next)")
                cursor[-1] = c + 1
                color[child] = 1
                stack.append(child)
                cursor.append(ptr[child])
            else:
                stack.pop()
                cursor.pop()
                color[node] = 2
                rank[node] = pos
                pos += 1
    return rank
