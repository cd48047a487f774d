"""Test fixture only: a Trace of a real compute on dask's threaded scheduler, built from dask
callbacks (task start/stop, thread, ``dask.sizeof`` of results, held bytes after each task).

The product path is the thread runtime appending its own Trace to ``trace.sink()``; this
adapter stands in for it so the report and ``record()`` are tested on real runs today."""

from __future__ import annotations

import threading
import time

from dask.callbacks import Callback
from dask.sizeof import sizeof
from dask.utils import key_split

from tidegate import trace


class CallbackTrace(Callback):
    def __init__(self, name="threaded", sink=True):
        super().__init__()
        self.name, self.to_sink = name, sink
        self.lock = threading.Lock()

    def _start_state(self, dsk, state):
        self.t0 = time.perf_counter()
        self.starts, self.threads, self.sizes = {}, {}, {}
        self.roots = {k for k, v in dsk.items() if not getattr(v, "dependencies", ())}
        self.trace = trace.Trace(meta={"name": self.name, "body": "threads", "policy": "dask"})

    def _pretask(self, key, dsk, state):
        with self.lock:
            self.starts[key] = time.perf_counter() - self.t0

    def _posttask(self, key, result, dsk, state, worker_id):
        now = time.perf_counter() - self.t0
        with self.lock:
            # dask runs callbacks on its own thread; worker_id names the pool thread
            thread = self.threads.setdefault(worker_id, len(self.threads))
            self.sizes[key] = sizeof(result)
            self.trace.tasks.append(trace.TaskEnd(
                str(key), key_split(key), "local", thread, self.starts[key], now,
                self.sizes[key], key in self.roots))
            held = [k for k in list(state["cache"]) if k in self.sizes]
            self.trace.memory.append(trace.Memory(
                now, "local", sum(self.sizes[k] for k in held),
                roots_in_flight=sum(k in self.roots for k in held)))

    def _finish(self, dsk, state, errored):
        self.trace.meta["workers"] = {"local": len(self.threads)}
        if self.to_sink and trace.sink() is not None:
            trace.sink().append(self.trace)


def threaded_trace(x, name="threaded", num_workers=2):
    """Compute ``x`` on dask's threaded scheduler and return the Trace of that run."""
    with CallbackTrace(name, sink=False) as cb:
        x.compute(scheduler="threads", num_workers=num_workers)
    return cb.trace
