"""Failure paths of the thread runtime, and bad input refused before any task runs.

Ctrl-C runs in a child process (a real SIGINT to a real run that has spilled to disk);
the rest runs here. See test_errors.py for failing tasks, cycles, missing references and
bad options, test_budget.py for unpicklable and unmeasurable results.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
import traceback

import dask
import numpy as np
import pytest
from dask import delayed
from dask._task_spec import DataNode, Task, TaskRef

import tidegate

pytestmark = pytest.mark.timeout(60)


def tidegate_threads() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name.startswith("tidegate-")]


# -- Ctrl-C during a spilling run ----------------------------------------------------------
CHILD = textwrap.dedent(
    """
    import json, os, signal, sys, threading, time
    import dask, numpy as np, tidegate
    from dask import delayed
    from dask.callbacks import Callback

    log = open(sys.argv[1], "a", buffering=1)  # line-buffered: the parent reads it live

    def interrupted(signum, frame):
        log.write(f"interrupt {time.time()}\\n")  # in the main thread, like every dispatch
        signal.default_int_handler(signum, frame)

    signal.signal(signal.SIGINT, interrupted)

    class Starts(Callback):
        def _pretask(self, key, dsk, state):  # main thread, just before a task is handed out
            log.write(f"start {key}\\n")

    def load(i):
        print(f"running load {i}", flush=True)
        time.sleep(0.5)
        return np.full(100_000, float(i))  # 800 kB

    def centre(x, total, n):
        time.sleep(0.5)
        return float((x - total / n).sum())

    # every load is needed twice, before and after the total: a 2 MB budget must spill
    n = 160
    loads = [delayed(load)(i) for i in range(n)]
    total = delayed(sum)(loads)
    out = delayed(sum)([delayed(centre)(x, total, n) for x in loads])
    t0 = time.time()
    try:
        with Starts():
            out.compute(scheduler=tidegate.get, num_workers=2, memory_limit=2e6)
    except KeyboardInterrupt:
        print(json.dumps({"returned": time.time(), "threads": [
            t.name for t in threading.enumerate() if t.name.startswith("tidegate-")]}),
            flush=True)
        raise
    print("finished without interruption", flush=True)
    """
)


def _wait_for(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def _spill_files(root) -> list[str]:
    return [f for d in os.listdir(root) for f in os.listdir(os.path.join(root, d))]


def test_ctrl_c_during_a_spilling_run(tmp_path):
    """SIGINT mid-run: KeyboardInterrupt reaches the caller once the running tasks end (well
    before the ~80 s the run needs), no task is handed out after it, no thread is left and
    the spill folder, written to by then, is gone."""
    spill_root = tmp_path / "spill"
    spill_root.mkdir()
    log = tmp_path / "log"
    log.touch()
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(log)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "DASK_TIDEGATE__SPILL_DIRECTORY": str(spill_root)},
    )  # fmt: skip
    try:
        assert proc.stdout.readline().startswith("running load")  # a task is running
        # Results have gone to disk: the budget holds fewer than three loads.
        _wait_for(lambda: _spill_files(spill_root), 40, "a spill file")
        sent = time.time()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert "KeyboardInterrupt" in err, err[-2000:]
    assert proc.returncode in (-signal.SIGINT, 130, 1), (proc.returncode, err[-2000:])
    report = json.loads(next(line for line in out.splitlines() if line.startswith("{")))
    assert report["returned"] - sent < 10, "Ctrl-C did not return promptly"
    assert report["threads"] == []
    lines = log.read_text().splitlines()
    interrupts = [n for n, line in enumerate(lines) if line.startswith("interrupt")]
    assert len(interrupts) == 1, lines[-5:]
    assert not [ln for ln in lines[interrupts[0] :] if ln.startswith("start")], "started after ^C"
    started = sum(ln.startswith("start") for ln in lines)
    print(f"{started} tasks handed out, returned {report['returned'] - sent:.2f} s after ^C")
    assert 2 < started < 200, started  # it ran a while, and far from all 322 tasks
    assert os.listdir(spill_root) == []  # the private spill folder is gone


# -- a task raising inside a budgeted, spilling run ----------------------------------------
def load(i):
    return np.full(50_000, float(i))  # 400 kB


def user_function_that_fails(x, total, n, spill_root):
    if x[0] == 7:
        # by now results have been spilled: the folder exists and holds files
        assert _spill_files(spill_root), "expected spilled results"
        raise ArithmeticError("chunk 7 is bad")
    return float((x - total / n).sum())


def test_task_error_in_a_spilling_run(tmp_path):
    n = 24
    loads = [delayed(load)(i) for i in range(n)]
    total = delayed(sum)(loads)
    out = delayed(sum)(
        [delayed(user_function_that_fails)(x, total, n, str(tmp_path)) for x in loads]
    )
    with dask.config.set({"tidegate.spill-directory": str(tmp_path)}):
        with pytest.raises(ArithmeticError, match="chunk 7 is bad") as info:
            out.compute(scheduler=tidegate.get, num_workers=2, memory_limit=1e6, validate=True)
    frames = [f.name for f in traceback.extract_tb(info.value.__traceback__)]
    assert "user_function_that_fails" in frames
    assert os.listdir(tmp_path) == []
    assert tidegate_threads() == []


def test_keyboard_interrupt_raised_by_a_task():
    """A task that raises KeyboardInterrupt (as a Ctrl-C landing in a worker would): the
    caller gets it, nothing new starts, no thread is left."""
    ran = []
    lock = threading.Lock()

    def work(i):
        with lock:
            ran.append(i)
        if i == 3:
            raise KeyboardInterrupt
        return i

    with pytest.raises(KeyboardInterrupt):
        tidegate.get({f"t{i}": (work, i) for i in range(20)}, [f"t{i}" for i in range(20)],
                     num_workers=1, validate=True)  # fmt: skip
    assert ran == [0, 1, 2, 3] or (len(ran) < 20 and ran[-1] == 3), ran
    assert tidegate_threads() == []


# -- bad input before any task runs -----------------------------------------------------
def test_task_whose_function_is_not_callable_is_refused_before_running():
    ran = []
    dsk = {
        "ok": Task("ok", ran.append, "ok"),
        "x": Task("x", 5),
        "y": Task("y", "not a function", TaskRef("ok")),
        "z": Task("z", len, TaskRef("x")),
    }
    with pytest.raises(ValueError, match=r"not callable: 'x' \(int 5\), 'y' \(str") as info:
        tidegate.get(dsk, ["z", "y"], num_workers=2)
    assert "'z'" not in str(info.value)
    assert ran == []
    assert tidegate_threads() == []


def test_legacy_tuple_with_a_non_callable_head_is_data_as_in_dask():
    # dask reads a tuple whose first element is not callable as a value, not a task.
    dsk = {"a": (5, 1), "b": ("a", 2), "c": (len, "a")}
    assert tidegate.get(dsk, ["a", "b", "c"]) == dask.get(dsk, ["a", "b", "c"]) == (
        (5, 1), ((5, 1), 2), 2
    )


def test_data_nodes_are_not_functions():
    dsk = {"d": DataNode("d", 5), "e": Task("e", int.__add__, TaskRef("d"), 1)}
    assert tidegate.get(dsk, ["e"], validate=True) == (6,)
