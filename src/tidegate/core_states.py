"""The thread runtime's task states (:mod:`tidegate.core`'s, read by its mixins)."""

from __future__ import annotations

from enum import IntEnum

__all__ = [
    "State", "WAITING", "READY", "PROCESSING", "MEMORY", "RELEASED", "ERRED", "SPILLED", "DROPPED",
    "STATE_NAMES",
]  # fmt: skip


class State(IntEnum):
    WAITING = 0
    READY = 1
    PROCESSING = 2
    MEMORY = 3
    RELEASED = 4
    ERRED = 5
    SPILLED = 6  # held on disk: finished, not in memory
    DROPPED = 7  # a root's output discarded under memory pressure: it will run again


WAITING, READY, PROCESSING, MEMORY, RELEASED, ERRED, SPILLED, DROPPED = (int(s) for s in State)
STATE_NAMES = tuple(s.name.lower() for s in State)
_PENDING = frozenset((WAITING, READY))
_FINISHED = frozenset((MEMORY, RELEASED, SPILLED, DROPPED))  # ran (DROPPED: its output measured)
