"""Spill storage for the thread runtime: results on disk, pickled with out-of-band buffers.

Pickle protocol 5 hands large buffers (numpy arrays, pandas blocks) to us separately, so
they are written and read without an extra in-memory copy.
"""

from __future__ import annotations

import os
import pickle
import shutil
import struct
import tempfile
import time
from typing import Any

_LEN = struct.Struct("<Q")


class SpillError(TypeError):
    """A result that must be spilled cannot be serialised."""


class SpillStore:
    """``{task: value}`` on disk, in a private temporary folder removed by ``close()``."""

    def __init__(self, parent: str | None = None):
        self.parent = parent
        self.path: str | None = None
        self.bytes_written = 0
        self.bytes_read = 0
        self.seconds = 0.0
        self._files: dict[int, str] = {}

    def put(self, key: int, value: Any, name: str = "") -> None:
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
        if self.path is None:
            self.path = tempfile.mkdtemp(prefix="tidegate-spill-", dir=self.parent)
        fn = os.path.join(self.path, str(key))
        with open(fn, "wb") as f:
            f.write(_LEN.pack(len(buffers)))
            for part in [header, *buffers]:
                view = memoryview(part).cast("B")
                f.write(_LEN.pack(view.nbytes))
                f.write(view)
                self.bytes_written += view.nbytes
        self._files[key] = fn
        self.seconds += time.perf_counter() - t0

    def pop(self, key: int) -> Any:
        t0 = time.perf_counter()
        fn = self._files.pop(key)
        with open(fn, "rb") as f:
            (nbuf,) = _LEN.unpack(f.read(_LEN.size))
            parts = []
            for _ in range(nbuf + 1):
                (size,) = _LEN.unpack(f.read(_LEN.size))
                part = bytearray(size)  # writable, so numpy arrays come back writable
                f.readinto(part)
                parts.append(part)
                self.bytes_read += size
        os.unlink(fn)
        value = pickle.loads(parts[0], buffers=parts[1:])
        self.seconds += time.perf_counter() - t0
        return value

    def delete(self, key: int) -> None:
        os.unlink(self._files.pop(key))

    def __contains__(self, key: int) -> bool:
        return key in self._files

    def close(self) -> None:
        if self.path is not None:
            shutil.rmtree(self.path, ignore_errors=True)
            self.path = None
        self._files.clear()
