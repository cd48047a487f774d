"""The spill store under concurrency and failure: the writer thread is held at chosen points
with events, so each race happens for sure rather than by luck."""

from __future__ import annotations

import errno
import os
import threading

import dask
import numpy as np
import pandas as pd
import pytest
from dask import delayed

import tidegate
from tidegate.spill import DiskFullError, SpillStore, SpillWriteError


class GatedStore(SpillStore):
    """A SpillStore whose writer stops before opening each file until the test lets it go,
    and records which files it opened."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.opened: list[str] = []
        self.at_open = threading.Semaphore(0)  # released once per file the writer reaches
        self.go = threading.Semaphore(0)  # one release lets one file be written

    def _open(self, fn):
        self.at_open.release()
        assert self.go.acquire(timeout=60)
        self.opened.append(os.path.basename(fn))
        return super()._open(fn)

    def writer_reached_a_file(self):
        assert self.at_open.acquire(timeout=60)


def test_round_trip_keeps_dtypes_and_writability(tmp_path):
    store = SpillStore(str(tmp_path))
    values = {
        1: np.arange(1000.0).reshape(10, 100)[:, ::3],  # non-contiguous
        2: pd.DataFrame({"a": np.arange(5), "b": list("abcde")}),
        3: {"nested": [np.ones(3, dtype="i2"), "text"]},
    }
    for k, v in values.items():
        store.put(k, v)
    store.flush()
    assert len(os.listdir(store.path)) == 3
    a = store.pop(1)
    np.testing.assert_array_equal(a, values[1])
    a[0, 0] = -1  # writable after a round trip
    pd.testing.assert_frame_equal(store.pop(2), values[2])
    assert store.pop(3)["nested"][1] == "text"
    assert os.listdir(store.path) == []
    store.close()
    assert os.listdir(tmp_path) == []


def test_values_plain_pickle_refuses_round_trip_through_cloudpickle(tmp_path):
    """A result holding a lambda or a local class (a bag of records with a key function):
    threaded and an unlimited compute return it, so a spill must not fail it (review20)."""

    class Local:
        def __init__(self, data):
            self.data = data

    store = SpillStore(str(tmp_path))
    store.put(1, {"key": lambda r: r * 2, "data": np.arange(4.0)})
    store.put(2, Local(np.ones(3)))
    store.flush()
    one = store.pop(1)
    assert one["key"](3) == 6 and one["data"].tolist() == [0.0, 1.0, 2.0, 3.0]
    assert store.pop(2).data.tolist() == [1.0, 1.0, 1.0]
    store.close()


def test_a_spill_directory_that_cannot_hold_a_folder_is_named(tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("")
    store = SpillStore(str(afile))
    with pytest.raises(SpillWriteError, match="spill folder.*afile.*spill-directory"):
        store.put(1, np.ones(3))
    store.close()


def test_values_wanted_back_before_their_turn_never_touch_the_disk(tmp_path):
    store = GatedStore(str(tmp_path))
    store.put(1, np.zeros(10))
    store.writer_reached_a_file()  # busy with 1: 2 and 3 wait in the queue
    store.put(2, np.full(10, 2.0))
    store.put(3, np.full(10, 3.0))
    np.testing.assert_array_equal(store.pop(2), np.full(10, 2.0))
    store.delete(3)
    store.go.release()
    store.flush()
    assert [f.split("-")[0] for f in store.opened] == ["1"]  # 2 and 3 never opened a file
    np.testing.assert_array_equal(store.pop(1), np.zeros(10))
    store.close()


def test_spilled_again_while_being_written_keeps_the_newer_value(tmp_path):
    store = GatedStore(str(tmp_path))
    old, new = np.zeros(10), np.ones(10)
    store.put(1, old)
    store.writer_reached_a_file()  # writing the first version
    assert store.pop(1) is old  # loaded back before that write is done
    store.put(1, new)  # and spilled again: a newer version
    store.go.release()  # the first write completes: it must not stand for the newer one
    store.writer_reached_a_file()
    store.go.release()
    store.flush()
    assert len(store.opened) == 2
    np.testing.assert_array_equal(store.pop(1), new)
    assert os.listdir(store.path) == []  # the stale file was removed
    store.close()


class WaitSpy(threading.Condition):
    """The store's condition variable, telling when someone waits on it."""

    def __init__(self):
        super().__init__()
        self.waited = threading.Event()

    def wait(self, timeout=None):
        self.waited.set()
        return super().wait(timeout)


def test_bytes_waiting_for_the_disk_are_bounded(tmp_path):
    """Values queued for the writer are out of the scheduler's books: past ``backlog`` bytes,
    put() waits for the writer to finish one (one value may always wait)."""
    store = GatedStore(str(tmp_path), backlog=100)
    store._lock = spy = WaitSpy()
    store.put(1, np.zeros(10), nbytes=80)
    store.writer_reached_a_file()
    assert not spy.waited.is_set()  # one value always may wait
    returned = threading.Event()

    def second():
        store.put(2, np.ones(10), nbytes=80)  # 160 > 100: must wait for the first write
        returned.set()

    t = threading.Thread(target=second)
    t.start()
    assert spy.waited.wait(60)  # the second put waits ...
    assert not returned.is_set()
    store.go.release()  # ... until the first file is written
    store.writer_reached_a_file()
    assert returned.wait(60)
    store.go.release()
    t.join(60)
    store.flush()
    np.testing.assert_array_equal(store.pop(2), np.ones(10))
    store.close()


class FullDisk(SpillStore):
    """Key 7's file is /dev/full: the kernel answers ENOSPC, as a full disk does."""

    def _open(self, fn):
        if os.path.basename(fn).startswith("7-"):
            return open("/dev/full", "wb")
        return super()._open(fn)


class HeldAfterOpen(GatedStore):
    """A GatedStore whose writer, once its open returned or raised, waits for ``finish``."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.tried_open = threading.Event()
        self.finish = threading.Event()

    def _open(self, fn):
        try:
            return super()._open(fn)
        finally:
            self.tried_open.set()
            assert self.finish.wait(60)


def test_close_without_waiting_removes_the_folder_while_a_file_opens(tmp_path, monkeypatch):
    """A Ctrl-C's close(wait=False) while the writer opens its next file, after rmtree
    emptied the folder and before it removes it: the folder is gone when close returns."""
    store = HeldAfterOpen(str(tmp_path))
    store.put(1, np.ones(10))
    store.writer_reached_a_file()
    writer, folder = store._writer, store.path
    real_rmdir = os.rmdir

    def rmdir(path, *args, **kwargs):  # rmtree emptied the folder: the writer opens now
        if os.path.basename(str(path)) == os.path.basename(folder):
            store.go.release()
            assert store.tried_open.wait(60)
        return real_rmdir(path, *args, **kwargs)

    monkeypatch.setattr(os, "rmdir", rmdir)
    store.close(wait=False)
    monkeypatch.undo()
    assert not os.path.exists(folder)
    store.finish.set()
    writer.join(60)
    assert os.listdir(tmp_path) == []


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_disk_full_is_named_on_the_key_that_failed(tmp_path):
    failed = threading.Event()
    store = FullDisk(str(tmp_path), on_error=failed.set)
    store.put(5, np.ones(100), "chunk-5")
    store.put(7, np.ones(100), "chunk-7")
    store.put(9, np.ones(100), "chunk-9")
    assert failed.wait(60)
    with pytest.raises(DiskFullError) as info:
        store.flush()  # returns: the failed key is not left pending
    err = info.value
    assert err.errno == errno.ENOSPC and "disk full" in str(err) and "'chunk-7'" in str(err)
    assert err.filename.startswith(store.path) and "No space left on device" in str(err)
    with pytest.raises(DiskFullError):
        store.pop(7)
    np.testing.assert_array_equal(store.pop(5), np.ones(100))  # other keys are unaffected
    np.testing.assert_array_equal(store.pop(9), np.ones(100))
    store.close()
    assert os.listdir(tmp_path) == []


def test_write_error_names_key_path_and_reason(tmp_path):
    failed = threading.Event()
    store = SpillStore(str(tmp_path), on_error=failed.set)
    store.put(1, np.ones(10), "first")
    store.flush()
    folder = store.path
    for f in os.listdir(folder):
        os.unlink(os.path.join(folder, f))
    os.rmdir(folder)  # someone removed the spill folder
    store.put(2, np.ones(10), "second")
    assert failed.wait(60)
    with pytest.raises(SpillWriteError, match=r"'second' to .* No such file or directory") as info:
        store.pop(2)
    assert not isinstance(info.value, DiskFullError)
    assert info.value.filename.startswith(folder)
    assert 2 not in store
    store.close()


def test_close_without_waiting_returns_while_a_write_is_stuck(tmp_path):
    store = GatedStore(str(tmp_path))
    store.put(1, np.ones(10))
    store.writer_reached_a_file()
    writer = store._writer
    store.close(wait=False)  # a Ctrl-C: does not wait for the stuck write
    assert writer.is_alive()
    store.go.release()  # the write resumes into a removed folder, and cleans up after itself
    writer.join(60)
    assert not writer.is_alive()
    assert os.listdir(tmp_path) == []


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_full_disk_fails_the_compute_naming_the_result(tmp_path, monkeypatch):
    def full(self, fn):
        return open("/dev/full", "wb")

    monkeypatch.setattr(SpillStore, "_open", full)
    loads = [delayed(np.full)(100_000, i, dask_key_name=f"load-{i}") for i in range(8)]
    total = delayed(sum)(loads)
    out = delayed(sum)([delayed(np.subtract)(x, total) for x in loads])
    with dask.config.set({"tidegate.spill-directory": str(tmp_path)}):
        with pytest.raises(DiskFullError, match=r"disk full: spilling the result of 'load-\d'"):
            out.compute(scheduler="tidegate", num_workers=1, memory_limit=2e6)
    assert os.listdir(tmp_path) == []


def test_spilled_inputs_are_read_back_on_the_worker_threads(tmp_path, monkeypatch):
    """The scheduling thread hands out a Load and goes on; the worker about to run the task
    reads the file. Every read of this run (its outputs are small, never spilled) happens
    on a tidegate worker thread."""
    readers = []
    pop = SpillStore.pop

    def recording_pop(self, key):
        readers.append(threading.current_thread().name)
        return pop(self, key)

    monkeypatch.setattr(SpillStore, "pop", recording_pop)
    loads = [delayed(np.full)(100_000, float(i)) for i in range(8)]
    total = delayed(sum)(loads)
    out = delayed(sum)([delayed(lambda x, t: float((x - t / 8).sum()))(x, total) for x in loads])
    stats = tidegate.RunStats()
    with dask.config.set({"tidegate.spill-directory": str(tmp_path)}):
        got = out.compute(scheduler="tidegate", num_workers=2, memory_limit=3e6, stats=stats)
    assert got == pytest.approx(0.0)
    assert stats.bytes_loaded > 0 and readers
    assert all(name.startswith("tidegate-") and name[9:].isdigit() for name in readers), readers
    assert os.listdir(tmp_path) == []


def test_empty_multidimensional_arrays_spill_and_come_back(tmp_path):
    """A result holding an empty 2-D array (an empty index, an empty DataFrame's (ncols, 0)
    block) spills: ``memoryview.cast`` refused a view with a zero in its shape (TypeError)."""
    store = SpillStore(str(tmp_path))
    values = {
        1: {"data": np.arange(10.0), "flagged": np.zeros((0, 2), dtype=np.int64)},
        2: np.zeros((3, 0, 4)),
        3: pd.DataFrame({"a": np.arange(0), "b": np.arange(0.0), "c": np.arange(0.0)}),
        4: np.asfortranarray(np.arange(12.0).reshape(3, 4)),
    }
    for k, v in values.items():
        store.put(k, v)
    store.flush()
    assert len(os.listdir(store.path)) == 4
    back = store.pop(1)
    np.testing.assert_array_equal(back["data"], values[1]["data"])
    assert back["flagged"].shape == (0, 2) and back["flagged"].dtype == np.int64
    two = store.pop(2)
    assert two.shape == (3, 0, 4)
    pd.testing.assert_frame_equal(store.pop(3), values[3])
    np.testing.assert_array_equal(store.pop(4), values[4])
    store.close()


def test_a_held_result_with_an_empty_2d_array_spills_in_a_compute(tmp_path):
    """The reviewer's case: 16 MB parts, each with an empty (0, 2) index, held to the end
    under a 40 MB limit (part 0, held to the end, and the pair in use: 48 MB), so spilled:
    the compute fails no more and gives the sync answer."""

    def load(i):
        return {"data": np.full(2_000_000, float(i)), "flagged": np.zeros((0, 2), np.int64)}

    def use(a, b):
        return float(a["data"].sum() + b["data"].sum()) + len(a["flagged"])

    parts = [delayed(load)(i) for i in range(12)]
    first = [delayed(use)(parts[i], parts[(i + 1) % 12]) for i in range(12)]
    tot = delayed(sum)(first + [delayed(use)(parts[0], parts[11])])
    stats = tidegate.RunStats()
    with dask.config.set({"tidegate.spill-directory": str(tmp_path)}):
        got = tot.compute(scheduler="tidegate", memory_limit="40MB", num_workers=2, stats=stats)
    assert got == tot.compute(scheduler="sync")
    assert stats.bytes_spilled > 0, stats


EXIT_WHILE_SPILLED = """
import sys, threading
import numpy as np
from tidegate.spill import SpillStore
store = SpillStore(sys.argv[1])
store.put(0, np.ones(1000), "a result", 8000)
store.flush()  # on disk: as a compute running in a daemon thread leaves it at exit
print(store.path)
"""


def test_a_spill_folder_left_open_at_exit_is_removed(tmp_path):
    """A compute in a daemon thread (a notebook's or a web app's) is cut off when the
    process exits: its spill folder stayed behind with every file in it (review23)."""
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-c", EXIT_WHILE_SPILLED, str(tmp_path)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().startswith(str(tmp_path))  # it made its folder there
    assert list(tmp_path.iterdir()) == []


FORK_WHILE_SPILLED = """
import os, sys
import numpy as np
from tidegate.spill import SpillStore
store = SpillStore(sys.argv[1])
store.put(0, np.arange(1000.0), "a result", 8000)
store.flush()
pid = os.fork()
if pid == 0:  # a child forked while the parent's compute runs, exiting normally
    sys.exit(0)
os.waitpid(pid, 0)
assert store.pop(0).sum() == 499500.0  # still on disk: the child left the folder alone
store.close()
print("ok")
"""


def test_a_forked_child_leaves_its_parents_spill_folder(tmp_path):
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-c", FORK_WHILE_SPILLED, str(tmp_path)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr
    assert list(tmp_path.iterdir()) == []
