"""``with tidegate.record("report.html"):`` around any compute, local or on a cluster.

Local computes hand their Trace to :func:`tidegate.trace.collecting`. With a
``distributed.Client`` in use, a :class:`Recorder` scheduler plugin records the cluster's
run inside the scheduler, whatever the policy (dask's eager or queuing, or tidegate's
plugin): task ends from ``transition``, transfers from the workers' startstops, memory per
worker sampled from ``WorkerState``, and roots in flight counted from the transitions the
same way for every policy (tidegate's structural root test). distributed is imported only
when a client is in use (it is an optional extra); the plugin class is built on first
access for that reason.
"""

from __future__ import annotations

import errno
import logging
import sys
import uuid
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from . import trace

logger = logging.getLogger("tidegate.recording")


@dataclass
class Recording:
    """What :func:`record` made: filled in when the block exits."""

    path: Path | None
    traces: list[trace.Trace] = field(default_factory=list)
    trace_files: list[Path] = field(default_factory=list)


@contextmanager
def record(path="tidegate-report.html", *, name: str | None = None, client=None,
           save_traces: bool = True, title: str = "tidegate report",
           interval: float = 0.1) -> Iterator[Recording]:
    """Record every compute inside the block and write one report to ``path`` on exit
    (also when the block raises); ``path=None`` only records (``Recording.traces``).
    ``name``: label of the recorded traces (numbered when several; default: each body's
    own, e.g. the policy). ``client``: the distributed client whose cluster to record
    (default: the client in use, if any). ``save_traces``: also write each trace as JSON
    lines next to the report (``<stem>-<n>.jsonl``; ``tidegate report`` reads them).
    ``interval``: seconds between memory samples on a cluster."""
    rec = Recording(None if path is None else Path(path))
    if rec.path is not None:
        _check_writable(rec.path)
    client = client if client is not None else _client_in_use()
    plugin = None
    if client is not None:
        plugin = f"tidegate-record-{uuid.uuid4().hex[:8]}"
        client.register_plugin(_recorder_class()(plugin, interval), name=plugin)
    try:
        with trace.collecting() as local, _Computes(local) as computes:
            yield rec
    finally:
        rec.traces.extend(local)
        failing = sys.exc_info()[0] is not None
        unseen = computes.count - len(local)
        if unseen > 0 and not failing:  # (a warning turned error must not hide the user's)
            warnings.warn(
                f"tidegate.record(): {unseen} compute{'s' if unseen > 1 else ''} in the "
                f"block ran on a scheduler that leaves no trace (dask's threaded, sync or "
                f"processes scheduler) and {'were' if unseen > 1 else 'was'} not recorded: "
                f"pass scheduler=\"tidegate\" (or use dask.config.set(scheduler="
                f"\"tidegate\")), or compute on a distributed Client",
                stacklevel=3,
            )
        if client is not None:
            cluster = client.run_on_scheduler(_finish_recording, name=plugin)
            if cluster.tasks or not rec.traces:  # an idle cluster beside local runs: leave out
                rec.traces.append(cluster)
        if name is not None:
            for i, tr in enumerate(rec.traces, 1):
                tr.meta["name"] = name if len(rec.traces) == 1 else f"{name} {i}"
        if rec.path is not None:
            _write(rec, save_traces, title, failing=failing, said=unseen > 0)


def _check_writable(path: Path) -> None:
    """The report's folder must exist before the block runs, not be found missing after
    all its computes (review23)."""
    folder = path.absolute().parent
    if not folder.is_dir():
        raise FileNotFoundError(errno.ENOENT, f"tidegate.record(): no folder {str(folder)!r} "
                                f"to write the report in", str(path))
    if path.is_dir():
        raise IsADirectoryError(errno.EISDIR, "tidegate.record(): the report's path is a "
                                "folder; give a file name such as report.html", str(path))


class _Computes:
    """Counts the computes started in this context that call dask's local callbacks (dask's
    threaded, sync and processes schedulers, and tidegate's), against the traces they left
    in ``local``: those that left none ran on a scheduler record() cannot see."""

    def __init__(self, local: list):
        from dask.callbacks import Callback

        class Counter(Callback):
            def _start_state(inner, dsk, state) -> None:
                if trace.sink() is local:  # (not another thread's compute meanwhile)
                    self.count += 1

        self.count = 0
        self._callback = Counter()

    def __enter__(self):
        self._callback.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self._callback.__exit__(*exc)


def _write(rec: Recording, save_traces: bool, title: str, failing: bool,
           said: bool = False) -> None:
    from .report import report

    if not rec.traces:
        if not said:  # (else the computes not recorded were named already)
                warnings.warn("tidegate.record(): nothing was computed in the block; no report "
                              "written", stacklevel=4)
        return
    try:
        report(rec.traces, rec.path, title=title)
        if save_traces:
            stem = rec.path.with_suffix("")
            rec.trace_files = [tr.save(f"{stem}-{i}.jsonl") for i, tr in enumerate(rec.traces)]
    except Exception:
        if not failing:
            raise
        logger.exception("tidegate.record(): could not write the report")  # keep the user's error


def _client_in_use():
    if "distributed" not in sys.modules:  # no client can exist without it
        return None
    from distributed import default_client

    try:
        return default_client()
    except ValueError:
        return None


def _finish_recording(dask_scheduler, name: str) -> trace.Trace:
    """Runs on the scheduler: stop the recorder, remove it, hand its trace back."""
    plugin = dask_scheduler.plugins[name]
    tr = plugin.finish()
    dask_scheduler.remove_plugin(name=name)
    return tr


def __getattr__(name):
    # The plugin subclasses distributed's SchedulerPlugin: built on first access, found
    # under this module's name by pickle on both sides of register_plugin.
    if name == "Recorder":
        return _recorder_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _recorder_class():
    cls = globals().get("Recorder")
    if cls is None:
        cls = globals()["Recorder"] = _make_recorder()
    return cls


def _make_recorder():
    from time import time

    from dask.utils import key_split
    from distributed.diagnostics.plugin import SchedulerPlugin
    from tornado.ioloop import PeriodicCallback

    # tidegate's structural root test, for every policy alike (loud if it moves)
    from .distributed.tasks import _structural_root as is_root

    class Recorder(SchedulerPlugin):
        """Records a Trace inside the scheduler (``body="distributed"``). Times are the
        workers' clocks (compute and transfer) and the scheduler's (memory samples), as
        seconds since the plugin started; on one machine they agree."""

        def __init__(self, name: str = "tidegate-record", interval: float = 0.1):
            self.name = name
            self.interval = interval

        async def start(self, scheduler) -> None:
            self.scheduler = scheduler
            self.t0 = time()
            self.trace = trace.Trace(meta={"name": _policy(scheduler), "body": "distributed",
                                           "policy": _policy(scheduler)})
            self._threads: dict[tuple, int] = {}  # (worker, thread ident) -> index on worker
            self._in_flight = trace.RootsInFlight(is_root)
            self._last = float("-inf")
            self.sample()
            # between task ends too (a long task's memory); never busier than 20 Hz
            self._pc = PeriodicCallback(self.sample, max(self.interval, 0.05) * 1000)
            self._pc.start()

        def transition(self, key, start, finish, *args, stimulus_id=None, **kw):
            ts = self.scheduler.tasks.get(key)
            if ts is not None:
                self._in_flight.transition(ts, start, finish, kw.get("worker"))
            if start != "processing" or finish not in ("memory", "erred"):
                return
            worker = kw.get("worker") or "?"
            startstops = kw.get("startstops") or ()
            compute = [s for s in startstops if s["action"] == "compute"]
            now = time()
            begin = min((s["start"] for s in compute), default=now)
            end = max((s["stop"] for s in compute), default=now)
            ident = (worker, kw.get("thread"))
            thread = self._threads.get(ident)
            if thread is None:
                thread = self._threads[ident] = sum(w == worker for w, _ in self._threads)
            ok = finish == "memory"
            self.trace.tasks.append(trace.TaskEnd(
                str(key), key_split(key), worker, thread,  # dask's group name, as everywhere
                begin - self.t0, end - self.t0, int(kw.get("nbytes") or 0) if ok else 0,
                bool(ts is not None and self._in_flight.is_root(ts)), ok))
            for s in startstops:
                if s["action"] == "transfer" and ts is not None:
                    self._transfers(ts, s, worker)
            if now - self.t0 - self._last >= self.interval:
                self.sample()

        def _transfers(self, ts, s, dest) -> None:
            # the worker reports one interval per fetch from a source, for the inputs of
            # the task it attached it to: those inputs held on the source were fetched
            moved = [d for d in ts.dependencies
                     if any(ws.address == s["source"] for ws in d.who_has)]
            for d in moved or [ts]:
                self.trace.transfers.append(trace.Transfer(
                    str(d.key), s["source"], dest, s["start"] - self.t0, s["stop"] - self.t0,
                    d.nbytes if moved else 0))

        def sample(self) -> None:
            now = time() - self.t0
            self._last = now
            roots = self._in_flight.per_worker()
            for ws in self.scheduler.workers.values():
                spilled = ws.memory.spilled  # as of the last heartbeat
                self.trace.memory.append(trace.Memory(
                    now, ws.address, max(0, ws.nbytes - spilled), ws.memory.process,
                    roots[ws.address], spilled))

        def finish(self) -> trace.Trace:
            self._pc.stop()
            self.sample()
            workers = {ws.address: ws.nthreads for ws in self.scheduler.workers.values()}
            workers.update({w: max(workers.get(w, 0), i + 1) for (w, _), i in self._threads.items()
                            if w not in workers})
            self.trace.meta["workers"] = workers
            limits = {ws.memory_limit for ws in self.scheduler.workers.values()}
            if len(limits) == 1 and None not in limits and 0 not in limits:
                self.trace.meta["memory_limit"] = limits.pop()
            return self.trace

        async def close(self) -> None:
            self._pc.stop()

    Recorder.__module__, Recorder.__qualname__ = __name__, "Recorder"
    return Recorder


def _policy(scheduler) -> str:
    if "tidegate" in scheduler.plugins:
        return "tidegate"
    return "eager" if scheduler.WORKER_SATURATION == float("inf") else "queue"
