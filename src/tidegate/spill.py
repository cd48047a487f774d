"""Spill storage for the thread runtime: results on disk, pickled with out-of-band buffers.

Pickle protocol 5 hands large buffers (numpy arrays, pandas blocks) to us separately, so
they are written and read without an extra in-memory copy.
"""

from __future__ import annotations

import atexit
import errno
import itertools
import os
import pickle
import queue
import shutil
import struct
import tempfile
import threading
import time
import weakref
from collections.abc import Callable
from typing import Any

import cloudpickle

_LEN = struct.Struct("<Q")


class SpillError(TypeError):
    """A result that must be spilled cannot be serialised."""


class SpillWriteError(OSError):
    """Writing a spilled result failed; names the result, the file and the OS's reason."""


class DiskFullError(SpillWriteError):
    """The spill folder's disk is full."""


class SpillStore:
    """``{task: value}`` on disk, in a private temporary folder removed by ``close()``.

    Writes happen on a background thread, so the scheduler keeps dispatching while a chunk
    goes to disk; a value stays reachable until its file is complete, and one that is
    loaded back (or released) before that never touches the disk. Values waiting for the
    disk are memory the scheduler has already counted out, so they are bounded: ``put``
    blocks while ``backlog`` bytes wait (one value always may), and memory cannot run ahead
    of the disk by more than that.

    Every ``put`` is a new version of its key: a file finished for an older version (the
    value was loaded back and spilled again while it was being written) is discarded, never
    taken for the newer one. A failed write is recorded on its key: ``pop`` of that key
    raises it, other keys are unaffected, ``error`` holds the first one and ``on_error`` is
    called (from the writer thread) so the owner can report it at once.
    """

    def __init__(self, parent: str | None = None, backlog: float = 64e6,
                 on_error: Callable[[], None] | None = None):  # fmt: skip
        self.parent = parent
        self.path: str | None = None
        self.bytes_written = 0
        self.bytes_read = 0
        self.seconds = 0.0
        self.error: BaseException | None = None
        self._on_error = on_error
        self._files: dict[int, str] = {}
        # queued or being written: (value, name, version, nbytes)
        self._pending: dict[int, tuple[Any, str, int, float]] = {}
        self._pending_bytes = 0.0
        self._failed: dict[int, BaseException] = {}
        self._lock = threading.Condition()
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._versions = itertools.count(1)
        self._backlog = backlog
        self._writer: threading.Thread | None = None
        self._writing = 0  # version being written, 0 for none
        self._closed = False
        self._pid = 0  # the process that made the folder

    @property
    def backlog_bytes(self) -> float:
        """Bytes of values queued or being written: still in memory."""
        return self._pending_bytes

    def put(self, key: int, value: Any, name: str = "", nbytes: float = 0) -> None:
        with self._lock:
            if self._closed:  # (at exit: a compute still running in a daemon thread)
                raise SpillWriteError(errno.ENOENT, "the spill folder was removed", self.path)
            if self.path is None:
                try:
                    self.path = tempfile.mkdtemp(prefix="tidegate-spill-", dir=self.parent)
                except OSError as exc:
                    raise SpillWriteError(
                        exc.errno,
                        f"cannot make a spill folder in {self.parent or tempfile.gettempdir()!r}: "
                        f"{exc.strerror or exc}. Point tidegate.spill-directory at a "
                        f"writable folder, or raise memory_limit",
                        self.parent,
                    ) from exc
                self._pid = os.getpid()
                _OPEN.add(self)
                self._writer = threading.Thread(target=self._write_loop, name="tidegate-spill",
                                                daemon=True)  # fmt: skip
                self._writer.start()
            while self._pending and self._pending_bytes + nbytes > self._backlog:
                self._lock.wait(0.2)
            version = next(self._versions)
            self._failed.pop(key, None)
            self._drop(key)
            self._pending[key] = (value, name, version, nbytes)
            self._pending_bytes += nbytes
        self._queue.put((key, version))

    def settle(self, keep=()) -> None:
        """Wait while more than ``backlog`` bytes wait for the disk, not counting the keys
        in ``keep`` (about to be read back from memory). ``put`` lets one value larger than
        ``backlog`` in; this keeps the caller from starting more work beside it until it is
        written, so memory does not run ahead of the disk by more than ``backlog``."""
        with self._lock:
            while self.error is None and not self._closed and sum(
                    e[3] for k, e in self._pending.items() if k not in keep) > self._backlog:
                self._lock.wait(0.2)

    def _write_loop(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            key, version = item
            with self._lock:
                entry = self._pending.get(key)
                if entry is None or entry[2] != version or self._closed:
                    continue  # loaded back, released or spilled again before its turn
                value, name = entry[0], entry[1]
                self._writing = version
                folder = self.path
            fn = os.path.join(folder, f"{key}-{version}")
            try:
                nbytes, seconds = self._write(fn, value, name or key)
            except BaseException as exc:  # noqa: BLE001 - recorded on the key, raised by the owner
                _unlink(fn)
                with self._lock:
                    if self._closed:  # close() may have run before this file existed
                        _rmdir(folder)
                    self._writing = 0
                    entry = self._pending.get(key)
                    if entry is not None and entry[2] == version:
                        self._drop(key)  # nobody waits for it: flush() must not spin
                        if not self._closed:
                            self._failed[key] = exc
                            if self.error is None:
                                self.error = exc
                    self._lock.notify_all()
                if self._on_error is not None and not self._closed:
                    self._on_error()
                continue
            value = entry = None
            with self._lock:
                self.bytes_written += nbytes
                self.seconds += seconds
                self._writing = 0
                entry = self._pending.get(key)
                if entry is not None and entry[2] == version and not self._closed:
                    self._drop(key)
                    self._files[key] = fn
                else:
                    # wanted back (or re-spilled) while being written: the copy in hand won
                    _unlink(fn)
                    if self._closed:
                        _rmdir(folder)
                entry = None
                self._lock.notify_all()

    def _open(self, fn: str):
        # Under the lock: once close() has begun no file appears in the folder, so its
        # rmtree empties it and removes it (a file opened between rmtree's listing and its
        # rmdir left the folder behind after a Ctrl-C, until the write ended).
        with self._lock:
            if self._closed:
                raise FileNotFoundError(errno.ENOENT, "the spill folder was removed", fn)
            return open(fn, "wb")

    def _write(self, fn: str, value: Any, name) -> tuple[int, float]:
        t0 = time.perf_counter()
        buffers: list[pickle.PickleBuffer] = []
        try:
            header = pickle.dumps(value, protocol=5, buffer_callback=buffers.append)
        except Exception:  # lambdas, local classes: as dask's own serialisation falls back
            buffers.clear()
            try:
                header = cloudpickle.dumps(value, protocol=5, buffer_callback=buffers.append)
            except Exception as exc:
                raise SpillError(
                    f"the result of {name!r} ({type(value).__name__}) must be spilled to "
                    f"stay within memory_limit but cannot be pickled: {exc}. Raise "
                    f"memory_limit or return picklable data."
                ) from exc
        nbytes = 0
        try:
            with self._open(fn) as f:
                f.write(_LEN.pack(len(buffers)))
                for part in [header, *buffers]:
                    view = _flat(part)
                    f.write(_LEN.pack(view.nbytes))
                    f.write(view)
                    nbytes += view.nbytes
        except OSError as exc:
            full = exc.errno in (errno.ENOSPC, errno.EDQUOT)
            kind = DiskFullError if full else SpillWriteError
            what = "disk full" if full else "cannot write"
            raise kind(
                exc.errno,
                f"{what}: spilling the result of {name!r} to {fn} failed: "
                f"{exc.strerror or exc}. Free space there, point tidegate.spill-directory "
                f"elsewhere, or raise memory_limit",
                fn,
            ) from exc
        return nbytes, time.perf_counter() - t0

    def _drop(self, key: int):
        """Take ``key``'s waiting entry out (lock held); wakes a ``put`` waiting for room."""
        entry = self._pending.pop(key, None)
        if entry is not None:
            self._pending_bytes -= entry[3]
            self._lock.notify_all()
        return entry

    def pop(self, key: int) -> Any:
        with self._lock:
            failed = self._failed.pop(key, None)
            if failed is not None:
                raise failed
            entry = self._drop(key)
            if entry is not None:
                return entry[0]  # never reached the disk
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
            if self._drop(key) is not None or self._failed.pop(key, None):
                return
            fn = self._files.pop(key)
        os.unlink(fn)

    def __contains__(self, key: int) -> bool:
        with self._lock:
            return key in self._pending or key in self._files or key in self._failed

    def flush(self) -> None:
        """Wait until every queued value is on disk; raise the first write error, if any."""
        with self._lock:
            while self._pending and self.error is None:
                self._lock.wait(0.2)
            if self.error is not None:
                raise self.error

    def close(self, wait: bool = True) -> None:
        """Remove the folder. ``wait``: let the writer finish its current file first;
        otherwise (Ctrl-C) return at once: the writer discards that file when done."""
        with self._lock:
            self._closed = True
            self._pending.clear()  # nothing queued is wanted any more
            self._pending_bytes = 0.0
            self._lock.notify_all()
        if self._writer is not None:
            self._queue.put(None)
            if wait:
                self._writer.join()
            self._writer = None
        if self.path is not None:
            shutil.rmtree(self.path, ignore_errors=True)
            self.path = None
        self._files.clear()
        _OPEN.discard(self)


# Stores with a folder not removed yet. A compute in a daemon thread (a notebook's, a web
# app's) is cut off when the process exits, its ``finally`` never runs: its folder and
# every file in it stayed behind (review23). Removed at exit, without waiting for writes.
_OPEN: weakref.WeakSet = weakref.WeakSet()


@atexit.register
def _close_open_stores() -> None:
    for store in list(_OPEN):
        if store._pid != os.getpid():  # a forked child's copy: the folder is its parent's
            continue
        try:
            store.close(wait=False)
        except Exception:  # noqa: BLE001 - at exit: remove what can be removed
            pass


def _flat(part) -> memoryview:
    """``part``'s bytes as a flat byte view. ``memoryview.cast`` refuses a view with a zero
    in its shape (an empty 2-D array: ``np.zeros((0, 2))``, an empty DataFrame's block), and
    a Fortran-ordered one; ``PickleBuffer.raw`` takes any contiguous buffer, and a buffer
    that is not contiguous is copied."""
    if isinstance(part, pickle.PickleBuffer):
        try:
            return part.raw()
        except BufferError:  # not contiguous: a copy in C order
            return memoryview(memoryview(part).tobytes())
    return memoryview(part).cast("B")


def _unlink(fn: str) -> None:
    try:
        os.unlink(fn)
    except FileNotFoundError:
        pass


def _rmdir(path: str | None) -> None:
    if path is None:
        return
    try:
        shutil.rmtree(path)
    except OSError:
        pass


_NOT_READ = object()


class Loading:
    """A spilled value on its way back into memory, read from disk by the first thread that
    needs it (a worker, about to run the task that needs it), so the scheduling thread never
    waits for a read. ``value`` is the value once read."""

    __slots__ = ("_store", "_key", "_lock", "value")

    def __init__(self, store: SpillStore, key: int):
        self._store, self._key = store, key
        self._lock = threading.Lock()
        self.value: Any = _NOT_READ

    @property
    def read(self) -> bool:
        return self.value is not _NOT_READ

    def get(self) -> Any:
        with self._lock:  # one read; other threads needing it wait for that one
            if self.value is _NOT_READ:
                self.value = self._store.pop(self._key)
        return self.value

    def discard(self) -> None:
        """Released before anyone read it: drop the file."""
        with self._lock:
            if self.value is _NOT_READ:
                self._store.delete(self._key)
            self.value = None

