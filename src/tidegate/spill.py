"""Spill storage for the thread runtime: results on disk, pickled with out-of-band buffers.

Pickle protocol 5 hands large buffers (numpy arrays, pandas blocks) to us separately, so
they are written and read without an extra in-memory copy.
"""

from __future__ import annotations

import os
import pickle
import queue
import shutil
import struct
import tempfile
import threading
import time
from typing import Any

_LEN = struct.Struct("<Q")


class SpillError(TypeError):
    """A result that must be spilled cannot be serialised."""


class SpillStore:
    """``{task: value}`` on disk, in a private temporary folder removed by ``close()``.

    Writes happen on a background thread, so the scheduler keeps dispatching while a chunk
    goes to disk; a value stays reachable until its file is complete, and one that is
    loaded back (or released) before that never touches the disk. At most ``backlog``
    writes wait at once: ``put`` blocks beyond that, so memory cannot run ahead of the disk.
    """

    def __init__(self, parent: str | None = None, backlog: int = 4):
        self.parent = parent
        self.path: str | None = None
        self.bytes_written = 0
        self.bytes_read = 0
        self.seconds = 0.0
        self._files: dict[int, str] = {}
        self._pending: dict[int, tuple[Any, str]] = {}  # queued or being written
        self._lock = threading.Condition()
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._backlog = backlog
        self._error: BaseException | None = None
        self._writer: threading.Thread | None = None
        self._writing = False

    def put(self, key: int, value: Any, name: str = "") -> None:
        with self._lock:
            self._raise_error()
            if self.path is None:
                self.path = tempfile.mkdtemp(prefix="tidegate-spill-", dir=self.parent)
                self._writer = threading.Thread(target=self._write_loop, name="tidegate-spill")
                self._writer.daemon = True
                self._writer.start()
            while len(self._pending) >= self._backlog and self._error is None:
                self._lock.wait(0.2)
            self._raise_error()
            self._pending[key] = (value, name)
        self._queue.put(key)

    def _write_loop(self) -> None:
        while True:
            key = self._queue.get()
            if key is None:
                return
            with self._lock:
                if key not in self._pending:
                    continue  # loaded back or released before its turn
                value, name = self._pending[key]
                self._writing = True
            try:
                fn, nbytes, seconds = self._write(key, value, name)
            except BaseException as exc:  # noqa: BLE001 - raised in the caller's thread
                with self._lock:
                    self._error = exc
                    self._writing = False
                    self._lock.notify_all()
                continue
            value = None
            with self._lock:
                self.bytes_written += nbytes
                self.seconds += seconds
                if self._pending.pop(key, None) is None:
                    os.unlink(fn)  # wanted back while being written: the copy in hand won
                else:
                    self._files[key] = fn
                self._writing = False
                self._lock.notify_all()

    def _write(self, key: int, value: Any, name: str) -> tuple[str, int, float]:
        t0 = time.perf_counter()
        buffers: list[pickle.PickleBuffer] = []
        try:
            header = pickle.dumps(value, protocol=5, buffer_callback=buffers.append)
        except Exception as exc:
            raise SpillError(
                f"the result of {name or key!r} ({type(value).__name__}) must be spilled to "
                f"stay within memory_limit but cannot be pickled: {exc}. Raise memory_limit "
                f"or return picklable data."
            ) from exc
        fn = os.path.join(self.path, str(key))
        nbytes = 0
        with open(fn, "wb") as f:
            f.write(_LEN.pack(len(buffers)))
            for part in [header, *buffers]:
                view = memoryview(part).cast("B")
                f.write(_LEN.pack(view.nbytes))
                f.write(view)
                nbytes += view.nbytes
        return fn, nbytes, time.perf_counter() - t0

    def pop(self, key: int) -> Any:
        with self._lock:
            self._raise_error()
            if key in self._pending:
                return self._pending.pop(key)[0]  # never reached the disk
            fn = self._files.pop(key)
        t0 = time.perf_counter()
        with open(fn, "rb") as f:
            (nbuf,) = _LEN.unpack(f.read(_LEN.size))
            parts = []
            for _ in range(nbuf + 1):
                (size,) = _LEN.unpack(f.read(_LEN.size))
                part = bytearray(size)  # writable, so numpy arrays come back writable
                f.readinto(part)
                parts.append(part)
        os.unlink(fn)
        value = pickle.loads(parts[0], buffers=parts[1:])
        with self._lock:
            self.bytes_read += sum(len(p) for p in parts)
            self.seconds += time.perf_counter() - t0
        return value

    def delete(self, key: int) -> None:
        with self._lock:
            if self._pending.pop(key, None) is None:
                os.unlink(self._files.pop(key))

    def __contains__(self, key: int) -> bool:
        with self._lock:
            return key in self._pending or key in self._files

    def flush(self) -> None:
        """Wait until every queued value is on disk; raise the writer's error, if any."""
        with self._lock:
            while (self._pending or self._writing) and self._error is None:
                self._lock.wait(0.2)
            self._raise_error()

    def _raise_error(self) -> None:
        if self._error is not None:
            error, self._error = self._error, None
            raise error

    def close(self) -> None:
        """Stop the writer once its current file is done, then remove the folder."""
        if self._writer is not None:
            with self._lock:
                self._pending.clear()  # nothing queued is wanted any more
            self._queue.put(None)
            self._writer.join()
            self._writer = None
        if self.path is not None:
            shutil.rmtree(self.path, ignore_errors=True)
            self.path = None
        self._files.clear()
