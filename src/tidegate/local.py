"""Thread runtime, the embedded default: executes the core's actions on a pool of threads.

It only executes: the main thread feeds completions to the core and hands out what the
core says to run; worker threads run tasks and measure results with ``dask.sizeof``.
"""

from __future__ import annotations

import contextvars
import queue
import threading
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from dask.sizeof import sizeof

from .core import Failed, Finished, Load, Release, Run, Scheduler, Spill
from .spill import SpillStore

_STOP = object()


@dataclass
class RunStats:
    """What a run did, for callers and reports."""

    tasks: int = 0
    wall_time: float = 0.0
    peak_held_bytes: float = 0.0
    peak_roots_held: int = 0
    core_time: float = 0.0  # time spent inside the core (decisions)
    ingest_time: float = 0.0  # dask graph -> TaskGraph, priorities and roots (set by bridge)
    bytes_spilled: int = 0  # measured sizes (dask.sizeof) of results moved to disk
    bytes_loaded: int = 0
    spill_file_bytes: int = 0  # bytes written to spill files
    spill_time: float = 0.0  # seconds spent writing and reading spill files


class _Counts:
    """A sized stand-in for a set of keys: dask's ProgressBar only takes ``len()``."""

    __slots__ = ("_read",)

    def __init__(self, read: Callable[[], int]):
        self._read = read

    def __len__(self) -> int:
        return self._read()


def progress_state(core: Scheduler) -> dict:
    """The subset of dask.local's ``state`` dict that diagnostics read, live and thread-safe."""
    return {
        "waiting": _Counts(lambda: core.n_waiting),
        "ready": _Counts(lambda: core.n_ready),
        "running": _Counts(lambda: core.n_running),
        "finished": _Counts(lambda: core.n_finished),
    }


def _worker_loop(
    tasks: queue.SimpleQueue,
    done: queue.SimpleQueue,
    execute: Callable[[int, list], Any],
    thread: int,
) -> None:
    while True:
        item = tasks.get()
        if item is _STOP:
            return
        i, inputs = item
        item = result = None
        try:
            result = execute(i, inputs)
        except BaseException as exc:  # noqa: BLE001 - handed back and re-raised by the caller
            done.put((i, False, exc, 0, thread))
        else:
            try:
                nbytes = sizeof(result)
            except Exception:  # a broken __sizeof__ is not the task's failure
                nbytes = None
            done.put((i, True, result, nbytes, thread))
        inputs = result = None  # hold no references once handed back: release frees memory


def run(
    core: Scheduler,
    execute: Callable[[int, list], Any],
    supplied: Sequence[list] | None = None,
    pretask: Callable[[int], None] | None = None,
    posttask: Callable[[int, Any, int], None] | None = None,  # (task, result, thread)
    spill_dir: str | None = None,
) -> tuple[dict[int, Any], RunStats]:
    """Run a whole graph; returns ``{output task: result}``.

    ``execute(i, inputs)`` runs task i on the values of its graph dependencies (in the
    graph's dependency order). ``supplied[i]``, if given, holds extra values appended to
    those inputs (values handed in by the caller rather than computed). Results the core
    spills go to a temporary folder under ``spill_dir``, removed when the run ends, however.
    A failing task's exception is re-raised here with its own traceback once the tasks
    already running have ended; no new task starts after a failure or a Ctrl-C.
    """
    graph = core.graph
    dep_ptr, dep_idx = core._dep_ptr, core._dep_idx
    data: dict[int, Any] = {}
    disk = SpillStore(spill_dir)
    pool = _Threads(sum(w.threads for w in core.workers), execute)
    stats = RunStats(tasks=len(graph))
    t0 = time.perf_counter()
    core_time = 0.0

    def dispatch(actions: list) -> None:
        for a in actions:
            if type(a) is Run:
                i = a.task
                inputs = [data[dep_idx[c]] for c in range(dep_ptr[i], dep_ptr[i + 1])]
                if supplied is not None and supplied[i]:
                    inputs += supplied[i]
                if pretask is not None:
                    pretask(i)
                pool.submit(i, inputs)
            elif type(a) is Release:
                if data.pop(a.task, _STOP) is _STOP:
                    disk.delete(a.task)
            elif type(a) is Spill:
                disk.put(a.task, data.pop(a.task), graph.keys[a.task])
            elif type(a) is Load:
                data[a.task] = disk.pop(a.task)

    error: BaseException | None = None
    try:
        c0 = time.perf_counter()
        actions = core.start()
        core_time += time.perf_counter() - c0
        dispatch(actions)
        while pool.inflight and not core.done:
            events = []
            for i, ok, value, nbytes, thread in pool.results():
                if ok:
                    data[i] = value
                    if nbytes is None:
                        nbytes = _unmeasured(graph.keys[i], value)
                    events.append(Finished(i, nbytes))
                    if posttask is not None:
                        posttask(i, value, thread)
                else:
                    events.append(Failed(i))
                    if error is None:
                        error = value
            value = None
            c0 = time.perf_counter()
            actions = core.handle_many(events)
            core_time += time.perf_counter() - c0
            dispatch(actions)
        if error is not None:
            raise error
        if not core.done:  # cannot happen while the core's invariants hold
            raise RuntimeError("tidegate stopped with work left and nothing running")
        results = {i: data[i] if i in data else disk.pop(i) for i in graph.outputs.tolist()}
        disk.flush()  # a spill that failed must not pass silently
    except BaseException:
        # Failure, Ctrl-C or a bug: nothing new starts; wait for the tasks already handed
        # to threads (counted here, not by the core, which may be mid-event).
        core.cancel()
        pool.drain()
        raise
    finally:
        pool.close()
        disk.close()  # after the last task: nothing writes or reads spill files any more
        stats.bytes_spilled, stats.bytes_loaded = core.bytes_spilled, core.bytes_loaded
        stats.spill_file_bytes, stats.spill_time = disk.bytes_written, disk.seconds
        stats.wall_time = time.perf_counter() - t0
        stats.core_time = core_time
        stats.peak_held_bytes = max(w.peak_held for w in core.workers)
        stats.peak_roots_held = core.peak_roots_held
    return results, stats


UNMEASURED_BYTES = 64 * 2**20


def _unmeasured(key, value) -> int:
    """Size of a result dask.sizeof cannot measure: say so, and count it pessimistically."""
    warnings.warn(
        f"dask.sizeof failed on the result of {key!r} ({type(value).__name__}); tidegate "
        f"counts it as {UNMEASURED_BYTES // 2**20} MiB against the memory budget. Register "
        f"a size with dask.sizeof.sizeof.register for exact accounting.",
        RuntimeWarning,
        stacklevel=2,
    )
    return UNMEASURED_BYTES


class _Threads:
    """Worker threads fed through a queue; counts the tasks handed out and not yet back."""

    def __init__(self, n: int, execute: Callable[[int, list], Any]):
        self.tasks: queue.SimpleQueue = queue.SimpleQueue()
        self.done: queue.SimpleQueue = queue.SimpleQueue()
        self.inflight = 0
        ctx = contextvars.copy_context()  # the caller's context (e.g. dask.config.set)
        self.threads = [
            threading.Thread(
                target=ctx.copy().run,
                args=(_worker_loop, self.tasks, self.done, execute, k),
                name=f"tidegate-{k}",
                daemon=True,
            )
            for k in range(n)
        ]
        for t in self.threads:
            t.start()

    def submit(self, i: int, inputs: list) -> None:
        self.inflight += 1
        self.tasks.put((i, inputs))

    def results(self) -> list:
        """Block for one result, then take every other one already waiting."""
        batch = [self._get()]
        self.inflight -= 1
        while True:
            try:
                batch.append(self.done.get_nowait())
            except queue.Empty:
                return batch
            self.inflight -= 1

    def _get(self):
        # A timeout keeps the main thread responsive to Ctrl-C on every platform.
        while True:
            try:
                return self.done.get(timeout=0.2)
            except queue.Empty:
                continue

    def drain(self) -> None:
        """Wait for every task handed out; results are dropped."""
        try:
            while self.inflight:
                self.results()
        except KeyboardInterrupt:
            pass  # a second Ctrl-C: stop waiting (threads are daemons)

    def close(self) -> None:
        for _ in self.threads:
            self.tasks.put(_STOP)
        for t in self.threads:
            t.join()
