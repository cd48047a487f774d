"""dask.local's callback ``state`` contract, as live read-only views over a running core.

dask.local hands callbacks a dict of plain containers it mutates as the run goes
(``dependencies``, ``dependents``, ``waiting``, ``waiting_data``, ``cache``, ``ready``,
``running``, ``finished``, ``released``). tidegate keeps that state in the core's arrays, so
the same keys hold views computed from them on demand: nothing is built up front, and a
view costs only when read.

Costs (n tasks): ``len()`` of ``waiting``/``ready``/``running``/``finished`` reads a counter
(O(1): what ProgressBar polls); ``len(released)`` counts a bytearray (O(n) in C, ~50 µs per
100,000 tasks); ``key in view`` and ``view[key]`` are O(1) plus the task's degree (the first
one builds a key index, ~5 ms per 100,000 tasks); iterating a view scans all tasks.
``dependents`` is built on first access (O(edges)) and kept.

Thread safety: the views only read bytes, ints and dict entries that the scheduling thread
writes one at a time, so a progress bar on another thread sees a state that is at most one
transition stale, never a torn one. Callbacks run on the scheduling thread (as in
dask.local) and see it exact. Differences from dask.local: ``ready`` is a set-like view, not
a list; values of spilled results are not in ``cache`` (they are on disk); the views refuse
writes (dask's ``Cache`` only rewrites ``dsk``, which tidegate re-reads after ``start``);
DataNodes, aliases and values supplied in ``cache`` are not tasks, so they are in no state
set (``dependencies`` still names them as the graph does; ``waiting`` and ``waiting_data``
name an alias's target instead of the alias). With posttask callbacks, completions are
taken in one at a time, as in dask.local, so each posttask sees the state right after its
own task finished.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Set
from typing import Any

from . import core as _core
from .spill import Loading

# Categories of the core's task states, by name, so a renumbering of the core's codes (or a
# new state such as "spilled") does not silently change what the views report.
_CATEGORIES = {
    "waiting": {"waiting"},
    "ready": {"ready"},
    # as in dask.local, a task that failed stays "running": it never finished
    "running": {"processing", "erred"},
    "finished": {"memory", "released", "spilled"},
    "released": {"released"},
    "held": {"memory", "spilled"},
    "erred": {"erred"},
}


def _state_names() -> dict[int, str]:
    enum = getattr(_core, "State", None)
    if enum is not None:
        return {int(s): s.name.lower() for s in enum}
    return dict(enumerate(_core.STATE_NAMES))


def state_codes(category: str) -> bytes:
    """The core's state codes in one category ("finished", "running", ...), as bytes."""
    names = _state_names()
    return bytes(sorted(c for c, name in names.items() if name in _CATEGORIES[category]))


class _Index:
    """Task key -> index, built on first use (most runs never need it)."""

    __slots__ = ("keys", "_index")

    def __init__(self, keys: list):
        self.keys = keys
        self._index: dict | None = None

    def get(self, key) -> int | None:
        index = self._index
        if index is None:
            index = self._index = {k: i for i, k in enumerate(self.keys)}
        try:
            return index.get(key)
        except TypeError:  # unhashable: not a key
            return None


class KeySet(Set):
    """The keys of tasks whose state is in one category; ``len()`` from a counter if given."""

    __slots__ = ("_state", "_codes", "_index", "_count")

    def __init__(self, state: bytearray, codes: bytes, index: _Index,
                 count: Callable[[], int] | None):  # fmt: skip
        self._state, self._codes, self._index, self._count = state, codes, index, count

    def __contains__(self, key) -> bool:
        i = self._index.get(key)
        return i is not None and self._state[i] in self._codes

    def __iter__(self) -> Iterator:
        keys, codes = self._index.keys, self._codes
        return (keys[i] for i, s in enumerate(bytes(self._state)) if s in codes)

    def __len__(self) -> int:
        if self._count is not None:
            return self._count()
        snapshot = bytes(self._state)
        return sum(snapshot.count(c) for c in self._codes)

    @classmethod
    def _from_iterable(cls, it) -> set:  # results of &, |, - are plain sets
        return set(it)

    def __repr__(self) -> str:
        return f"<live set of {len(self)} keys>"


class _Relations(Mapping):
    """``{key: set of related keys}`` for the tasks in one category (None: every task)."""

    __slots__ = ("_state", "_codes", "_index", "_related", "_keep", "_count")

    def __init__(self, state, codes, index: _Index, related: Callable[[int], list[int]], keep,
                 count: Callable[[], int] | None = None):  # fmt: skip
        self._state, self._codes, self._index = state, codes, index
        self._related, self._keep, self._count = related, keep, count

    def __getitem__(self, key) -> set:
        # A key listed a moment ago whose task has moved on since still answers (what it
        # waits for now: often nothing): dict(view) and {**view} list keys first and look
        # each up after, from another thread (review20b). Membership reads the state now.
        i = self._index.get(key)
        if i is None:
            raise KeyError(key)
        return self._of(i, self._state)

    def _of(self, i: int, state) -> set:
        """Task i's related keys in ``keep`` by ``state`` (now, or a snapshot of it)."""
        keys, keep = self._index.keys, self._keep
        return {keys[j] for j in self._related(i) if keep is None or state[j] in keep}

    def __contains__(self, key) -> bool:
        i = self._index.get(key)
        return i is not None and (self._codes is None or self._state[i] in self._codes)

    def get(self, key, default=None):
        return self[key] if key in self else default

    def __iter__(self) -> Iterator:
        keys, codes = self._index.keys, self._codes
        return (keys[i] for i, s in enumerate(bytes(self._state)) if codes is None or s in codes)

    def items(self) -> list:  # type: ignore[override]
        """One snapshot for keys and values: a key whose task moves on mid-iteration must
        not raise KeyError (Mapping's own looks every key up again: review20)."""
        keys, codes = self._index.keys, self._codes
        snap = bytes(self._state)
        return [(keys[i], self._of(i, snap)) for i, s in enumerate(snap)
                if codes is None or s in codes]  # fmt: skip

    def values(self) -> list:  # type: ignore[override]
        return [v for _, v in self.items()]

    def __len__(self) -> int:
        if self._count is not None:
            return self._count()
        if self._codes is None:
            return len(self._state)
        snapshot = bytes(self._state)
        return sum(snapshot.count(c) for c in self._codes)


class _Dependencies(Mapping):
    """``{key: set of dependency keys}`` as the graph given to callbacks names them."""

    __slots__ = ("_dsk", "_supplied")

    def __init__(self, dsk: Mapping, supplied: Mapping):
        self._dsk, self._supplied = dsk, supplied

    def __getitem__(self, key) -> set:
        node = self._dsk.get(key)
        if node is None:
            if key in self._supplied:
                return set()
            raise KeyError(key)
        return set(node.dependencies)

    def __iter__(self) -> Iterator:
        return iter(self._dsk)

    def __len__(self) -> int:
        return len(self._dsk)


class _Dependents(Mapping):
    """``{key: set of dependent keys}``, inverted from the graph on first access."""

    __slots__ = ("_dsk", "_map")

    def __init__(self, dsk: Mapping):
        self._dsk = dsk
        self._map: dict | None = None

    def _built(self) -> dict:
        if self._map is None:
            out: dict = {k: set() for k in self._dsk}
            for k, node in self._dsk.items():
                for d in node.dependencies:
                    out.setdefault(d, set()).add(k)
            self._map = out
        return self._map

    def __getitem__(self, key) -> set:
        return self._built()[key]

    def __iter__(self) -> Iterator:
        return iter(self._built())

    def __len__(self) -> int:
        return len(self._built())


class _Cache(Mapping):
    """Results in memory now (``{key: value}``), plus the values supplied up front."""

    __slots__ = ("_data", "_index", "_supplied")

    def __init__(self, data: dict, index: _Index, supplied: Mapping):
        self._data, self._index, self._supplied = data, index, supplied

    def __getitem__(self, key) -> Any:
        i = self._index.get(key)
        if i is not None:
            value = self._data.get(i, _MISSING)  # one atomic read: no check-then-get race
            if type(value) is Loading:  # on its way back from disk
                value = value.value if value.read else _MISSING
            if value is not _MISSING:
                return value
        return self._supplied[key]

    def _held(self) -> list:
        keys = self._index.keys
        # list() of a dict's items is one atomic copy; values still on disk are left out
        return [keys[i] for i, v in list(self._data.items())
                if type(v) is not Loading or v.read]  # fmt: skip

    def __iter__(self) -> Iterator:
        return iter(self._held() + list(self._supplied))

    def __len__(self) -> int:
        return len(self._held()) + len(self._supplied)

    def items(self) -> list:  # type: ignore[override]
        """One snapshot: a result released mid-iteration is left out, not a KeyError."""
        keys, out = self._index.keys, []
        for i, v in list(self._data.items()):  # one atomic copy
            if type(v) is Loading:
                if not v.read:
                    continue
                v = v.value
            out.append((keys[i], v))
        return out + list(self._supplied.items())

    def values(self) -> list:  # type: ignore[override]
        return [v for _, v in self.items()]


_MISSING = object()


class RunView:
    """tidegate's own numbers for progress bars: ``state["tidegate"]`` in every callback.

    Read-only, live and safe to read from any thread:

    - ``tasks``: tasks this run executes (values supplied up front are not tasks);
    - ``finished``: tasks finished so far;
    - ``memory_limit``: the run's memory_limit in bytes (RSS above its level at compute
      start), or None when unlimited;
    - ``memory_used``: the process's RSS above its level at compute start, now (bytes;
      read from /proc at each access), or None when not known;
    - ``held_bytes``: measured bytes (``dask.sizeof``) of results held in memory now;
    - ``bytes_spilled``: bytes moved to disk so far (a result spilled twice counts twice).
    """

    __slots__ = ("_core", "_limit", "_baseline", "_rss")

    def __init__(self, core, memory_limit: float, baseline: int | None = None):
        self._core = core
        self._limit = None if memory_limit == float("inf") else int(memory_limit)
        self._baseline = baseline
        self._rss = None

    @property
    def memory_used(self) -> int | None:
        if self._baseline is None:
            return None
        if self._rss is None:
            from .measure import rss_reader

            self._rss = rss_reader()
        return max(0, self._rss() - self._baseline)

    @property
    def tasks(self) -> int:
        return len(self._core.graph)

    @property
    def finished(self) -> int:
        return self._core.n_finished

    @property
    def memory_limit(self) -> int | None:
        return self._limit

    @property
    def held_bytes(self) -> int:
        return sum(w.held for w in self._core.workers)

    @property
    def bytes_spilled(self) -> int:
        return self._core.bytes_spilled

    def __repr__(self) -> str:
        return (
            f"<tidegate run: {self.finished}/{self.tasks} tasks, {self.held_bytes} B held, "
            f"{self.bytes_spilled} B spilled, limit {self.memory_limit}>"
        )


def callback_state(core, dsk: Mapping, data: dict, supplied: Mapping, memory_limit: float,
                   baseline: int | None = None) -> dict:  # fmt: skip
    """The ``state`` dict dask.local gives callbacks, as live views over ``core``."""
    graph = core.graph
    state = core.state
    index = _Index(graph.keys)
    dep_ptr, dep_idx = graph.dep_ptr, graph.dep_idx
    dpt_ptr, dpt_idx = graph.dependent_ptr, graph.dependent_idx

    def deps(i: int) -> list[int]:
        return dep_idx[dep_ptr[i] : dep_ptr[i + 1]].tolist()

    def dependents(i: int) -> list[int]:
        return dpt_idx[dpt_ptr[i] : dpt_ptr[i + 1]].tolist()

    finished = state_codes("finished")
    unfinished = bytes(c for c in range(256) if c not in finished)

    erred = state_codes("erred")

    def running() -> int:
        if core.failed is None:
            return core.n_running
        snapshot = bytes(state)
        return core.n_running + sum(snapshot.count(c) for c in erred)

    def keyset(category: str, count=None) -> KeySet:
        return KeySet(state, state_codes(category), index, count)

    return {
        "dependencies": _Dependencies(dsk, supplied),
        "dependents": _Dependents(dsk),
        # tasks not ready yet -> their inputs not finished yet
        "waiting": _Relations(
            state, state_codes("waiting"), index, deps, unfinished, lambda: core.n_waiting
        ),
        # results held -> the tasks that still need them
        "waiting_data": _Relations(state, state_codes("held"), index, dependents, unfinished),
        "cache": _Cache(data, index, supplied),
        "ready": keyset("ready", lambda: core.n_ready),
        "running": keyset("running", running),
        "finished": keyset("finished", lambda: core.n_finished),
        "released": keyset("released"),
        "tidegate": RunView(core, memory_limit, baseline),
    }
