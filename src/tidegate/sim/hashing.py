"""Hashes that are the same in every process, so that a run does not depend on
PYTHONHASHSEED.

dask iterates sets of tasks, keys and addresses, and the order of a set follows the hashes
of its members; ``hash()`` of a string changes with PYTHONHASHSEED. The twin gives what it
creates hashes of their text (crc32): worker addresses (:class:`StableStr`), the
scheduler's TaskStates and WorkerStates (``cluster.py``), and the keys dask.order sees
(:func:`stable_order`). Same text, same comparisons: dask cannot tell the difference.
"""

from __future__ import annotations

import zlib

from dask._task_spec import DataNode, GraphNode
from dask.order import order as dask_order


def stable_hash(key) -> int:
    return zlib.crc32(repr(key).encode())


class StableStr(str):
    """A string hashing alike in every process. Only objects the twin hands out are
    these; dask passes them along unchanged. ``salt`` (an int; 0: none) gives another
    hash, still alike in every process: the twin's ``seed`` salts worker addresses, as a
    real worker's random id decides where it falls in dask's sets of workers."""

    def __new__(cls, value: str, salt: int = 0):
        self = super().__new__(cls, value)
        self._hash = zlib.crc32((f"{salt}:{value}" if salt else value).encode())
        return self

    def __hash__(self) -> int:
        return self._hash


def stable_key(key, memo: dict):
    """``key`` with every string in it a :class:`StableStr` (tuples hash their items)."""
    s = memo.get(key)
    if s is None:
        if type(key) is str:
            s = StableStr(key)
        elif type(key) is tuple:
            s = tuple(stable_key(k, memo) for k in key)
        else:
            s = key  # numbers hash alike everywhere
        memo[key] = s
    return s


class _Node(GraphNode):
    """What dask.order reads of a task: its key and dependencies."""

    __slots__ = ()

    def __init__(self, key, dependencies: frozenset) -> None:
        self.key = key
        self._dependencies = dependencies


def stable_order(dsk: dict) -> dict:
    """``dask.order.order(dsk)`` with its ties broken alike for every PYTHONHASHSEED: it
    breaks some by iterating sets of keys. Run on a copy with :func:`stable_key` keys."""
    memo: dict = {}
    copy = {}
    for key, node in dsk.items():
        k = stable_key(key, memo)
        if type(node) is DataNode:
            copy[k] = DataNode(k, None)
        else:
            copy[k] = _Node(k, frozenset(stable_key(d, memo) for d in node.dependencies))
    ranks = dask_order(copy)
    return {key: ranks[memo[key]] for key in dsk}
