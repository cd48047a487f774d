"""Failure paths of the thread runtime, and bad input refused before any task runs.

Ctrl-C runs in a child process (a real SIGINT to a real run that has spilled to disk and
whose threads hang);
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
import traceback

import dask
import numpy as np
import pytest
from dask import delayed
from dask._task_spec import DataNode, Task, TaskRef

import tidegate

from conftest import join_tidegate_threads

pytestmark = pytest.mark.timeout(60)




# -- Ctrl-C with tasks that never return, in a run that has spilled ------------------------
# Both threads must hang at once in a run that spilled. Under a process-memory limit the
# second task starts beside the first only if the RSS readings leave it room (core._fill),
# so the premise would rest on readings. Another compute runs beside this one instead (in
# a thread of its own, waiting): overlapping computes share held-bytes books (local.LEDGER)
# and steer no RSS, so the budget is memory_limit in held bytes, spills are exact, and
# both centres start.
CHILD = textwrap.dedent(
    """
    import json, os, signal, sys, threading
    from concurrent.futures import Executor
    import dask, numpy as np, tidegate
    from dask import delayed
    from dask.callbacks import Callback

    log = open(sys.argv[1], "a", buffering=1)  # line-buffered: the parent reads it live
    spill_root = sys.argv[2]

    def interrupted(signum, frame):
        log.write("interrupt\\n")  # in the main thread, like every dispatch
        signal.default_int_handler(signum, frame)

    signal.signal(signal.SIGINT, interrupted)

    class Starts(Callback):
        def _pretask(self, key, dsk, state):  # main thread, just before a task is handed out
            log.write(f"start {key}\\n")

    # The other compute: one task waiting all along, its loop on a daemon thread of its
    # own (no "tidegate-k" name; the child exits with it still waiting), called from one.
    class Daemon(Executor):
        _max_workers = 1

        def submit(self, fn, /, *args, **kwargs):
            threading.Thread(target=fn, args=args, kwargs=kwargs, daemon=True).start()

    beside = threading.Event()

    def waits(_):
        beside.set()
        threading.Event().wait()

    threading.Thread(target=lambda: delayed(waits)(0).compute(
        scheduler="tidegate", num_workers=1, pool=Daemon()), daemon=True).start()
    beside.wait()

    def load(i):
        return np.full(100_000, float(i))  # 800 kB

    lock = threading.Lock()

    def centre(x, total, n):
        if x[0] < 2:  # the first two never return: both threads hang
            with lock:  # one line each: print() writes the newline separately
                sys.stdout.write(f"hung {int(x[0])}\\n")
                sys.stdout.flush()
            threading.Event().wait()
        return float((x - total / n).sum())

    # every load is needed twice, before and after the total: 25.6 MB held, past the
    # 20 MB budget, so loads are spilled (not dropped and run again: recompute-roots off)
    n = 32
    loads = [delayed(load)(i) for i in range(n)]
    total = delayed(sum)(loads)
    out = delayed(sum)([delayed(centre)(x, total, n) for x in loads])
    try:
        with Starts(), dask.config.set({"tidegate.recompute-roots": False}):
            out.compute(scheduler="tidegate", num_workers=2, memory_limit=20e6)
    except KeyboardInterrupt:
        print(json.dumps({"spill_root": os.listdir(spill_root), "alive": sorted(
            t.name for t in threading.enumerate()
            if t.name.startswith("tidegate-") and t.name[9:].isdigit())}),  # not the writer
            flush=True)
        raise
    print("finished without interruption", flush=True)
    """
)


def _spill_files(root) -> list[str]:
    return [f for d in os.listdir(root) for f in os.listdir(os.path.join(root, d))]


def test_ctrl_c_returns_with_hung_tasks_and_removes_the_spill_folder(tmp_path):
    """SIGINT while both threads run tasks that never return, spilled results on disk
    (beside another compute, so that both start whatever the process's memory reads):
    KeyboardInterrupt reaches the caller anyway (the hung threads are abandoned), no task is
    handed out after it, and the spill folder is gone. Were get() to wait for the hung tasks,
    the child would never exit and ``communicate`` would time out."""
    spill_root = tmp_path / "spill"
    spill_root.mkdir()
    log = tmp_path / "log"
    log.touch()
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(log), str(spill_root)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "DASK_TIDEGATE__SPILL_DIRECTORY": str(spill_root)},
    )  # fmt: skip
    try:
        hung = {proc.stdout.readline().strip(), proc.stdout.readline().strip()}
        assert hung == {"hung 0", "hung 1"}, hung
        assert _spill_files(spill_root), "expected spilled results on disk"
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert "KeyboardInterrupt" in err, err[-2000:]
    report = json.loads(next(line for line in out.splitlines() if line.startswith("{")))
    assert report["spill_root"] == []  # removed before get() returned
    assert report["alive"] == ["tidegate-0", "tidegate-1"]  # abandoned, still in their tasks
    lines = log.read_text().splitlines()
    assert lines.count("interrupt") == 1, lines[-5:]
    assert not [ln for ln in lines[lines.index("interrupt") :] if ln.startswith("start")]
    assert os.listdir(spill_root) == []


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
    assert join_tidegate_threads() == []


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
    assert ran == [0, 1, 2, 3]  # one thread, priority order; nothing after the interrupt
    assert join_tidegate_threads() == []


def test_interrupt_in_the_setup_leaves_nothing_behind(monkeypatch):
    """A Ctrl-C (or a bug) after a limited run registered in the process's ledger and
    started its threads and RSS sampler, before its own try: the ledger forgets it (else
    every later compute shares a budget with a run that is gone and steers no RSS), its
    threads end and glibc's settings are not left pinned."""
    from tidegate import local, local_steering, measure

    def interrupted(graph):
        raise KeyboardInterrupt

    monkeypatch.setattr(local_steering, "_representative_inputs", interrupted)
    graph = {f"t{i}": (sum, [i, 1]) for i in range(8)}
    with pytest.raises(KeyboardInterrupt):
        tidegate.get(graph, list(graph), num_workers=2, memory_limit="1GB")
    assert local.LEDGER.active == 0
    assert measure._limited == 0
    assert join_tidegate_threads() == []  # the workers and "tidegate-rss"


def test_a_second_interrupt_in_the_setup_s_undo_leaves_nothing_behind(monkeypatch):
    """A Ctrl-C in the setup, then a second one while its undo joins the RSS sampler: the
    undo's other releases still run (else the ledger counted a run that was gone, every
    later compute in the process ungoverned, and the threads were never told to stop)."""
    from tidegate import local, local_steering, measure

    def interrupted(graph):
        raise KeyboardInterrupt

    stop = measure.Governor.stop

    def stop_interrupted(self):
        stop(self)
        raise KeyboardInterrupt

    monkeypatch.setattr(local_steering, "_representative_inputs", interrupted)
    monkeypatch.setattr(measure.Governor, "stop", stop_interrupted)
    graph = {f"t{i}": (sum, [i, 1]) for i in range(8)}
    with pytest.raises(KeyboardInterrupt):
        tidegate.get(graph, list(graph), num_workers=2, memory_limit="1GB")
    assert local.LEDGER.active == 0
    assert measure._limited == 0
    assert join_tidegate_threads(timeout=5) == []


@pytest.mark.parametrize("limit", [None, "1GB"])
def test_threads_that_cannot_all_start_leave_none_behind(monkeypatch, limit):
    """The third worker thread cannot start (a container's pids limit): the error is
    raised and the two started stop, with or without a limit."""
    start = threading.Thread.start
    started = []

    def failing(self):
        if self.name.startswith("tidegate-") and self.name != "tidegate-rss":
            started.append(self.name)
            if len(started) == 3:
                raise RuntimeError("can't start new thread")
        start(self)

    monkeypatch.setattr(threading.Thread, "start", failing)
    graph = {f"t{i}": (sum, [i, 1]) for i in range(8)}
    with pytest.raises(RuntimeError, match="can't start new thread"):
        tidegate.get(graph, list(graph), num_workers=4, memory_limit=limit)
    monkeypatch.undo()
    assert join_tidegate_threads(timeout=5) == []


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
    assert join_tidegate_threads() == []


def test_legacy_tuple_with_a_non_callable_head_is_data_as_in_dask():
    # dask reads a tuple whose first element is not callable as a value, not a task.
    dsk = {"a": (5, 1), "b": ("a", 2), "c": (len, "a")}
    assert tidegate.get(dsk, ["a", "b", "c"]) == dask.get(dsk, ["a", "b", "c"]) == (
        (5, 1), ((5, 1), 2), 2
    )


def test_data_nodes_are_not_functions():
    dsk = {"d": DataNode("d", 5), "e": Task("e", int.__add__, TaskRef("d"), 1)}
    assert tidegate.get(dsk, ["e"], validate=True) == (6,)
