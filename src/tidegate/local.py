"""Thread runtime, the embedded default: executes the core's actions on a pool of threads.

It only executes: the main thread feeds completions to the core and hands out what the
core says to run; worker threads run tasks and measure results with ``dask.sizeof``.
"""

from __future__ import annotations

import contextvars
import queue
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from dask.sizeof import sizeof

from .core import Failed, Finished, Release, Run, Scheduler

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
            nbytes = sizeof(result)
        except BaseException as exc:  # noqa: BLE001 - handed back and re-raised by the caller
            done.put((i, False, exc, 0, thread))
        else:
            done.put((i, True, result, nbytes, thread))
        inputs = result = None  # hold no references once handed back: release frees memory


def run(
    core: Scheduler,
    execute: Callable[[int, list], Any],
    supplied: Sequence[list] | None = None,
    pretask: Callable[[int], None] | None = None,
    posttask: Callable[[int, Any, int], None] | None = None,  # (task, result, thread)
) -> tuple[dict[int, Any], RunStats]:
    """Run a whole graph; returns ``{output task: result}``.

    ``execute(i, inputs)`` runs task i on the values of its graph dependencies (in the
    graph's dependency order). ``supplied[i]``, if given, holds extra values appended to
    those inputs (values handed in by the caller rather than computed).
    A failing task's exception is re-raised here with its own traceback once the tasks
    already running have ended; no new task starts after a failure or a Ctrl-C.
    """
    graph = core.graph
    nthreads = sum(w.threads for w in core.workers)
    dep_ptr, dep_idx = core._dep_ptr, core._dep_idx
    data: dict[int, Any] = {}
    tasks: queue.SimpleQueue = queue.SimpleQueue()
    done: queue.SimpleQueue = queue.SimpleQueue()
    ctx = contextvars.copy_context()
    threads = [
        threading.Thread(
            target=ctx.copy().run,
            args=(_worker_loop, tasks, done, execute, k),
            name=f"tidegate-{k}",
            daemon=True,
        )
        for k in range(nthreads)
    ]
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
                tasks.put((i, inputs))
            elif type(a) is Release:
                del data[a.task]

    for t in threads:
        t.start()
    error: BaseException | None = None
    try:
        c0 = time.perf_counter()
        actions = core.start()
        core_time += time.perf_counter() - c0
        dispatch(actions)
        while not core.done and core.n_running:
            batch = [_get(done)]
            while True:  # drain: one core call for every completion already waiting
                try:
                    batch.append(done.get_nowait())
                except queue.Empty:
                    break
            events = []
            for i, ok, value, nbytes, thread in batch:
                if ok:
                    data[i] = value
                    events.append(Finished(i, nbytes))
                    if posttask is not None:
                        posttask(i, value, thread)
                else:
                    events.append(Failed(i))
                    if error is None:
                        error = value
            del batch, value
            c0 = time.perf_counter()
            actions = core.handle_many(events)
            core_time += time.perf_counter() - c0
            dispatch(actions)
        if error is not None:
            raise error
        if not core.done:  # cannot happen while the core's invariants hold
            raise RuntimeError("tidegate stopped with work left and nothing running")
    except BaseException:
        # Failure or Ctrl-C: nothing new starts; let running tasks end, then stop threads.
        core.cancel()
        _drain_running(core, done)
        raise
    finally:
        for _ in threads:
            tasks.put(_STOP)
        for t in threads:
            t.join()
        stats.wall_time = time.perf_counter() - t0
        stats.core_time = core_time
        stats.peak_held_bytes = max(w.peak_held for w in core.workers)
        stats.peak_roots_held = core.peak_roots_held
    return {i: data[i] for i in graph.outputs.tolist()}, stats


def _get(done: queue.SimpleQueue):
    # A timeout keeps the main thread responsive to Ctrl-C on every platform.
    while True:
        try:
            return done.get(timeout=0.2)
        except queue.Empty:
            continue


def _drain_running(core: Scheduler, done: queue.SimpleQueue) -> None:
    """Wait for tasks already handed to threads; their results are dropped."""
    while core.n_running:
        try:
            i, ok, _, nbytes, _ = _get(done)
        except KeyboardInterrupt:
            return  # a second Ctrl-C: stop waiting (threads are daemons)
        core.handle(Finished(i, nbytes) if ok else Failed(i))
