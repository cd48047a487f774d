"""One event-trace schema for all three bodies: the thread runtime, the twin, the plugin.

A :class:`Trace` is flat records in four kinds (task ends, memory samples, transfers,
spills) plus a ``meta`` dict; it is saved as JSON lines (first line: meta) and loaded back.
Times are seconds since the run started (virtual seconds in the twin). Keys are stored as
``str(key)``. Standard library only: every body, the CLI and the report can import it.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from contextvars import ContextVar
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path


@dataclass(frozen=True, slots=True)
class TaskEnd:
    """A task ran on ``worker`` (an address or "local") and thread ``thread``."""

    key: str
    group: str
    worker: str
    thread: int
    start: float
    stop: float
    nbytes: int  # size of its result (dask.sizeof), 0 if it failed
    root: bool
    ok: bool = True


@dataclass(frozen=True, slots=True)
class Memory:
    """A sample of one worker's memory. ``held``: bytes of results kept (managed);
    ``process``: measured process memory (RSS) where known, else None."""

    time: float
    worker: str
    held: int
    process: int | None = None
    roots_in_flight: int = 0
    spilled: int = 0  # bytes held on disk


@dataclass(frozen=True, slots=True)
class Transfer:
    key: str
    source: str
    dest: str
    start: float
    stop: float
    nbytes: int


@dataclass(frozen=True, slots=True)
class SpillEvent:
    time: float
    worker: str
    key: str
    nbytes: int
    direction: str  # "spill" (to disk) or "load" (back into memory)


KINDS = {"task": TaskEnd, "memory": Memory, "transfer": Transfer, "spill": SpillEvent}
_LISTS = {"task": "tasks", "memory": "memory", "transfer": "transfers", "spill": "spills"}


@dataclass
class Trace:
    """What one run did. ``meta`` holds at least ``name`` (a label for reports), ``body``
    ("threads", "twin" or "distributed"), ``policy`` and ``workers`` ({worker: threads});
    optionally ``memory_limit`` (bytes per worker) and anything else JSON can hold."""

    meta: dict = field(default_factory=dict)
    tasks: list[TaskEnd] = field(default_factory=list)
    memory: list[Memory] = field(default_factory=list)
    transfers: list[Transfer] = field(default_factory=list)
    spills: list[SpillEvent] = field(default_factory=list)

    @property
    def name(self) -> str:
        return str(self.meta.get("name", self.meta.get("policy", "run")))

    # -- file -------------------------------------------------------------------------
    def save(self, path) -> Path:
        path = Path(path)
        with path.open("w") as f:
            f.write(json.dumps({"kind": "meta", **self.meta}, default=str) + "\n")
            for kind, attr in _LISTS.items():
                for rec in getattr(self, attr):
                    f.write(json.dumps({"kind": kind, **asdict(rec)}) + "\n")
        return path

    @classmethod
    def load(cls, path) -> Trace:
        trace = cls()
        with Path(path).open() as f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    rec = json.loads(line)
                    kind = rec.pop("kind")
                    if kind == "meta":
                        trace.meta.update(rec)
                    else:
                        getattr(trace, _LISTS[kind]).append(KINDS[kind](**rec))
                except (ValueError, KeyError, TypeError) as exc:
                    raise ValueError(f"{path}:{n}: not a tidegate trace record ({exc})") from exc
        return trace

    # -- summary ----------------------------------------------------------------------
    def workers(self) -> list[str]:
        names = dict.fromkeys(self.meta.get("workers", {}))
        names.update(dict.fromkeys(t.worker for t in self.tasks))
        names.update(dict.fromkeys(m.worker for m in self.memory))
        return list(names)

    def summary(self) -> dict:
        """Headline numbers: makespan, peaks per worker, bytes moved and spilled."""
        peak_held: dict[str, int] = dict.fromkeys(self.workers(), 0)
        peak_process: dict[str, int] = {}
        for m in self.memory:
            peak_held[m.worker] = max(peak_held.get(m.worker, 0), m.held)
            if m.process is not None:
                peak_process[m.worker] = max(peak_process.get(m.worker, 0), m.process)
        return {
            "name": self.name,
            "tasks": len(self.tasks),
            "failed": sum(not t.ok for t in self.tasks),
            "makespan": max((t.stop for t in self.tasks), default=0.0),
            "peak_memory_per_worker": list(peak_held.values()),
            "peak_process_per_worker": list(peak_process.values()),
            "peak_roots_in_flight": max((m.roots_in_flight for m in self.memory), default=0),
            "bytes_transferred": sum(t.nbytes for t in self.transfers),
            "bytes_spilled": sum(s.nbytes for s in self.spills if s.direction == "spill"),
        }


def record_fields(kind: str) -> list[str]:
    """Column names of one record kind, for tables and dataframes."""
    return [f.name for f in fields(KINDS[kind])]


# -- collecting traces of the computes run inside a block ---------------------------------
_sink: ContextVar[list | None] = ContextVar("tidegate_trace_sink", default=None)


@contextmanager
def collected_in(var: ContextVar) -> Iterator[list]:
    """A fresh list set as ``var`` for the block (in this context), yielded; ``var`` is
    reset after it. The sinks of :func:`collecting` and ``local.collect_stats``."""
    items: list = []
    token = var.set(items)
    try:
        yield items
    finally:
        var.reset(token)


def collecting() -> AbstractContextManager[list[Trace]]:
    """Every compute run inside the block (in this context) appends its Trace to the list
    yielded. Bodies ask :func:`sink` whether anyone is collecting; ``record()`` builds on it."""
    return collected_in(_sink)


def sink() -> list[Trace] | None:
    """The list a body should append its run's Trace to, or None: nobody is collecting."""
    return _sink.get()


class RootsInFlight:
    """Roots in flight per worker, seen from the scheduler's transitions and alike for
    every policy: roots processing plus root outputs held that no consumer has finished
    with yet. Fed by the distributed Recorder (``tidegate.recording``) and the twin."""

    def __init__(self, is_root, on_change=None) -> None:
        self._is_root = is_root  # (scheduler TaskState) -> bool
        self._on_change = on_change  # (worker address, its new count), if given
        self._roots: dict = {}  # key -> root?
        self.where: dict = {}  # root key in flight -> worker address
        self.count: Counter = Counter()  # worker address -> roots in flight

    def is_root(self, ts) -> bool:
        r = self._roots.get(ts.key)
        if r is None:
            r = self._roots[ts.key] = bool(self._is_root(ts))
        return r

    def transition(self, ts, start, finish, worker) -> None:
        key = ts.key
        if finish == "processing":
            if ts.processing_on is not None and self.is_root(ts):
                self._move(key, ts.processing_on.address)
        elif start == "processing" and finish == "memory":
            for d in ts.dependencies:
                self._move(d.key, None)  # consumed
            if key in self.where and worker:
                self._move(key, worker)
        elif finish != "memory":  # released, erred, forgotten, lost with its worker
            self._move(key, None)

    def _move(self, key, worker) -> None:
        old = self.where.pop(key, None)
        if old == worker:
            if worker is not None:
                self.where[key] = worker
            return
        if old is not None:
            self.count[old] -= 1
            if self._on_change:
                self._on_change(old, self.count[old])
        if worker is not None:
            self.where[key] = worker
            self.count[worker] += 1
            if self._on_change:
                self._on_change(worker, self.count[worker])

    def per_worker(self) -> Counter:
        return self.count
