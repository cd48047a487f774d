"""Several runs of the twin side by side, one child process each.

``simulate(x, policy=[...])`` runs each policy on the same model and seed, independently of
the others: with more than one core they can run at once. :func:`run_all` starts at most
``processes`` children at a time and returns their results in the jobs' order, as the
serial loop would. On Linux the children are forked, so the model (built once, in the
parent) reaches them without pickling; elsewhere they are spawned and it must pickle. Each
result comes back pickled.

- A child that raises: the parent raises the child's own exception, with the child's
  traceback (as text) as its cause, and stops the other children.
- Ctrl-C (or any exception in the parent): every child still running is killed and
  reaped before the exception goes on. Children ignore SIGINT themselves, so a Ctrl-C that
  reaches the whole process group does not make each of them print a traceback.
"""

from __future__ import annotations

import copy
import multiprocessing
import os
import pickle
import signal
import sys
import threading
import traceback
from collections.abc import Callable, Sequence
from multiprocessing.connection import wait

import dask.config


def cores() -> int:
    """Cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def idle_cores() -> int:
    """Cores this process may use that are not busy: :func:`cores` less the 1-minute load
    average, counting this process's own load as idle (at least 1). On a machine whose
    cores are all busy, more processes only compete for them (and each copies the pages
    of the model it touches)."""
    n = cores()
    try:
        busy = os.getloadavg()[0]
    except (AttributeError, OSError):  # not on this platform
        busy = 0.0
    return max(1, min(n, round(n + 1 - busy)))


class RemoteTraceback(Exception):
    """A child's traceback, as text: the cause of the exception re-raised in the parent."""

    def __init__(self, tb: str) -> None:
        super().__init__(tb)
        self.tb = tb

    def __str__(self) -> str:
        return self.tb


class ChildDied(RuntimeError):
    """A child process ended without sending a result or an exception (killed, crashed)."""


def run_all(fn: Callable, jobs: Sequence[tuple], processes: int,
            labels: Sequence[str] | None = None) -> list:
    """``[fn(*job) for job in jobs]``, at most ``processes`` jobs at a time, each in a child
    process. ``labels`` name the jobs in errors."""
    forked = sys.platform.startswith("linux")
    ctx = multiprocessing.get_context("fork" if forked else "spawn")
    # A spawned child starts from dask's default config: it gets the caller's (a fork
    # inherits it, including any ``dask.config.set`` in effect).
    config = None if forked else copy.deepcopy(dask.config.config)
    labels = list(labels) if labels is not None else [str(i) for i in range(len(jobs))]
    results: list = [None] * len(jobs)
    todo = list(enumerate(jobs))
    running: dict = {}  # connection -> (job index, process)
    try:
        while todo or running:
            while todo and len(running) < max(1, processes):
                i, job = todo.pop(0)
                recv, send = ctx.Pipe(duplex=False)
                p = ctx.Process(target=_child, args=(send, fn, job, config), daemon=True,
                                name=f"tidegate-twin-{labels[i]}")
                running[recv] = (i, p)  # before it starts: a Ctrl-C now still stops it
                _start(p)
                send.close()  # the child's end only: EOF here if it dies without a word
            for conn in wait(list(running)):
                i, p = running.pop(conn)
                try:
                    msg = conn.recv()
                except EOFError:
                    msg = None
                except BaseException:  # e.g. Ctrl-C while a result is being read
                    p.kill()
                    raise
                finally:
                    conn.close()
                    p.join()
                if msg is None:
                    raise ChildDied(f"the twin's process for {labels[i]!r} ended without a "
                                    f"result (exit code {p.exitcode})")
                ok, value = msg
                if not ok:
                    exc, tb = value
                    if hasattr(exc, "add_note"):  # Python >= 3.11
                        exc.add_note(f"(raised in the twin's process for {labels[i]!r})")
                    raise exc from RemoteTraceback(tb)
                results[i] = value
    finally:
        started = [(conn, p) for conn, (_, p) in running.items() if p.pid is not None]
        for _, p in started:
            # SIGKILL: a child holds nothing to clean up, and a fork inherits the parent's
            # SIGTERM handler (the demo's raised KeyboardInterrupt: a child terminated in
            # its first instants caught it and slept on, hanging CI in session 26).
            p.kill()
        for _, p in started:
            p.join()
        for conn in running:
            conn.close()
    return results


def _start(p) -> None:
    """``p.start()``, a Ctrl-C during it held until it returns: raised after the fork but
    before ``start`` had stored the child (``p.pid`` still None), it left that child running
    unstopped (seen under load: the Ctrl-C test's child alive after the interrupt)."""
    if threading.current_thread() is not threading.main_thread():
        p.start()  # signals reach the main thread only: nothing to hold here
        return
    held: list = []
    previous = signal.signal(signal.SIGINT, lambda *args: held.append(args))
    try:
        p.start()
    finally:
        signal.signal(signal.SIGINT, previous)
    if held:
        if callable(previous):
            previous(*held[0])  # the default handler raises KeyboardInterrupt
        elif previous == signal.SIG_DFL:
            raise KeyboardInterrupt


def _child(conn, fn: Callable, job: tuple, config: dict | None) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent stops us (see module doc)
    if config is not None:
        dask.config.config.clear()
        dask.config.config.update(config)
    try:
        out = (True, fn(*job))
    except BaseException as e:  # noqa: BLE001  (sent to the parent, which raises it)
        out = (False, _sendable(e, traceback.format_exc()))
    try:
        conn.send(out)
    except Exception as e:  # noqa: BLE001  (a result that does not pickle)
        conn.send((False, _sendable(e, traceback.format_exc())))
    conn.close()


def _sendable(exc: BaseException, tb: str) -> tuple:
    """(exception, traceback text), the exception replaced by a RuntimeError naming it if
    it does not survive pickling."""
    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:  # noqa: BLE001
        exc = RuntimeError(f"{type(exc).__name__}: {exc}")
    return exc, tb
