"""Hashes that are the same in every process, so that a run does not depend on
PYTHONHASHSEED.

dask iterates sets of tasks, keys and addresses, and the order of a set follows the hashes
of its members; ``hash()`` of a string changes with PYTHONHASHSEED. That order decides real
placements: under eager, which of a task's inputs (a set) the scheduler assigns first, hence
which worker each batch of co-assigned roots lands on, so a real cluster's placement changes
with its scheduler's PYTHONHASHSEED. The twin's ``seed`` stands for it: a seed other than 0
salts the scheduler's task hashes (and its worker addresses, for a real worker's random id). The
twin gives what it creates hashes of their text (crc32): worker addresses (:class:`StableStr`), the
scheduler's TaskStates and WorkerStates (``cluster.py``), the workers' TaskStates, which
dask hashes by id() (``worker.py``); the keys dask.order sees are numbered
(:func:`stable_order`). Same text, same comparisons: dask cannot tell the difference.
"""

from __future__ import annotations

import ctypes
import sys
import zlib

from dask._task_spec import DataNode, GraphNode
from dask.order import order as dask_order


def stable_hash(key, salt: int = 0) -> int:
    """crc32 of ``repr(key)``; ``salt`` (an int; 0: none) gives another, as a process with
    another PYTHONHASHSEED would."""
    return zlib.crc32((f"{salt}:{key!r}" if salt else repr(key)).encode())


def _hash_field():
    """The offset of a str's cached hash in the object, or None where it cannot be
    confirmed (not CPython, another object layout): then :class:`StableStr` hashes in
    Python. Confirmed by reading a probe's field after ``hash()`` filled it, then writing
    it and hashing again; only the probe is written."""
    if sys.implementation.name != "cpython":  # id() is an address only in CPython
        return None
    at = object.__basicsize__ + ctypes.sizeof(ctypes.c_ssize_t)  # after the header, length
    probe = type("_Probe", (str,), {})("tidegate hash probe")
    field = ctypes.c_ssize_t.from_address(id(probe) + at)
    # (hash first: a probe made from a constant loaded from a .pyc has no cached hash yet,
    # -1, and read before hash() filled it the check failed: StableStr hashed in Python)
    filled = hash(probe)
    if field.value != filled:
        return None
    field.value = 12345
    return at if hash(probe) == 12345 else None


_HASH_AT = _hash_field()


class StableStr(str):
    """A string hashing alike in every process. Only objects the twin hands out are
    these; dask passes them along unchanged. ``salt`` (an int; 0: none) gives another
    hash, still alike in every process: the twin's ``seed`` salts worker addresses, as a
    real worker's random id decides where it falls in dask's sets of workers.

    The hash is written into the string's own cache, where CPython keeps a str's hash once
    computed: hashing it is then str's C code, as for a real scheduler's address, not a
    Python ``__hash__`` call per dict look-up. That call was 8.5% of the scheduler's CPU
    under the plugin, which keys its books by address, and inflated its CPU ratio against
    queuing's in the twin. Elsewhere (see :func:`_hash_field`) ``__hash__`` is Python."""

    def __new__(cls, value: str, salt: int = 0):
        return _stable_str(value, zlib.crc32((f"{salt}:{value}" if salt else value).encode()))

    if _HASH_AT is None:

        def __hash__(self) -> int:
            return self._hash

    def __reduce__(self):
        # (str's own pickling rebuilds it unsalted: the cache would hold the wrong hash)
        return _stable_str, (str(self), self._hash)


def _stable_str(value: str, hash_: int) -> StableStr:
    """A :class:`StableStr` of ``value`` hashing to ``hash_`` (also a pickled one's rebuild:
    its salt is in its hash)."""
    self = str.__new__(StableStr, value)
    self._hash = hash_
    if _HASH_AT is not None:
        ctypes.c_ssize_t.from_address(id(self) + _HASH_AT).value = hash_
    return self


class _Node(GraphNode):
    """What dask.order reads of a task: its key and dependencies."""

    __slots__ = ()

    def __init__(self, key, dependencies: frozenset) -> None:
        self.key = key
        self._dependencies = dependencies


def stable_order(dsk: dict) -> dict:
    """``dask.order.order(dsk)`` with its ties broken alike for every PYTHONHASHSEED: it
    breaks some by iterating sets of keys. Run on a copy whose keys are ints subclassed
    (their place in the graph: an int hashes to itself, in every process, in C) that print
    as the keys did, since dask.order breaks its last ties by ``str(key)``; each task's
    dependencies are inserted in graph order (where two hash to the same slot of a set, the
    first in stays first). A third faster than with :class:`StableStr` keys, whose
    ``__hash__`` is Python code."""
    names = list(dsk)
    for node in dsk.values():  # keys outside the graph (dask.order adds them)
        for d in node.dependencies:
            if d not in dsk:
                names.append(d)
    names = list(dict.fromkeys(names))

    class _Key(int):
        __slots__ = ()  # no __dict__: the text is looked up, and only on a tie

        def __str__(self) -> str:
            return str(names[self])

        __repr__ = __str__

    ids = {key: _Key(i) for i, key in enumerate(names)}
    copy = {}
    for key, node in dsk.items():
        k = ids[key]
        if type(node) is DataNode:
            copy[k] = DataNode(k, None)
        else:
            deps = node.dependencies
            copy[k] = _Node(k, frozenset(sorted(ids[d] for d in deps) if len(deps) > 1
                                         else [ids[d] for d in deps]))
    ranks = dask_order(copy)
    return {key: ranks[ids[key]] for key in dsk}
