"""A list of policies run in child processes (sim/processes.py): the same results as one
after another in this process, a child's exception raised here with its traceback, and
Ctrl-C stopping the children."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time

import pytest

from tidegate.sim import processes, simulate
from tidegate.sim.processes import ChildDied, RemoteTraceback, run_all
from tidegate.sim.workloads import build

POLICIES = ["eager", "queue", "tidegate"]


def _same(a, b) -> None:
    assert a.policy == b.policy
    assert a.summary() == b.summary()
    assert (a.messages, a.unknown_sizes) == (b.messages, b.unknown_sizes)
    t, u = a.trace, b.trace
    assert (t.tasks, t.transfers, t.memory, t.spills) == (u.tasks, u.transfers, u.memory, u.spills)
    assert t.meta == u.meta


@pytest.mark.parametrize("workload", ["vorticity", "anomaly"])
def test_policies_in_processes_give_what_one_process_gives(workload):
    w = build(workload, 24, 50e6, store=False)
    kw = dict(keys=w.keys, sizes=w.sizes, durations=w.durations, workers=8,
              threads_per_worker=2, policy=POLICIES, loop_lag=[0.001, 0.004, 0.02], seed=1)
    serial = simulate(w.graph, processes=1, **kw)
    parallel = simulate(w.graph, processes=3, **kw)
    assert [r.policy for r in parallel] == POLICIES
    for a, b in zip(serial, parallel):
        _same(a, b)
    # not one run thrice (anomaly 8x2: the three peak alike since the partial means have
    # their real size, two blocks; the makespans differ)
    assert len({(max(r.peak_memory_per_worker), r.makespan) for r in serial}) > 1


def _pid(tag):
    return tag, os.getpid()


def test_jobs_run_in_children_and_come_back_in_order():
    out = run_all(_pid, [("a",), ("b",), ("c",)], processes=2)
    assert [tag for tag, _ in out] == ["a", "b", "c"]
    pids = {pid for _, pid in out}
    assert os.getpid() not in pids and len(pids) == 3


def test_a_failing_policy_raises_its_own_exception_with_its_traceback():
    w = build("stack-sum", 8, 10e6, store=False)
    with pytest.raises(TypeError, match="no_such_option") as info:
        simulate(w.graph, keys=w.keys, sizes=w.sizes, durations=w.durations, workers=2,
                 threads_per_worker=1, policy=["queue", "tidegate"], processes=2,
                 no_such_option=1)  # only the tidegate child builds a Plugin with it
    cause = info.value.__cause__
    assert isinstance(cause, RemoteTraceback)
    assert "Traceback" in cause.tb and "_run" in cause.tb  # the child's frames
    if hasattr(info.value, "add_note"):  # Python >= 3.11
        assert "'tidegate'" in " ".join(info.value.__notes__)


def _exit(code):
    os._exit(code)


def test_a_child_that_dies_without_a_word():
    with pytest.raises(ChildDied, match="exit code 3"):
        run_all(_exit, [(3,)], processes=1, labels=["dies"])


def _sleep_after_writing_pid(folder):
    with open(os.path.join(folder, str(os.getpid())), "w"):
        pass
    time.sleep(600)


def test_ctrl_c_stops_the_children(tmp_path):
    def interrupt_when_both_started():
        while len(os.listdir(tmp_path)) < 2:
            time.sleep(0.05)
        os.kill(os.getpid(), signal.SIGINT)

    t = threading.Thread(target=interrupt_when_both_started, daemon=True)
    t.start()
    with pytest.raises(KeyboardInterrupt):
        run_all(_sleep_after_writing_pid, [(str(tmp_path),)] * 2, processes=2)
    t.join()
    for pid in map(int, os.listdir(tmp_path)):  # terminated and reaped: gone
        assert not _our_child(pid), pid


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forked children only")
def test_ctrl_c_while_a_child_starts_still_stops_it(tmp_path, monkeypatch):
    """A Ctrl-C that lands after the fork but before ``Process.start`` stored the child (a
    busy machine preempts the parent there) must not leave that child running."""
    from multiprocessing import popen_fork

    forked = []
    launch = popen_fork.Popen._launch

    def launch_then_interrupt(self, process_obj):
        launch(self, process_obj)
        forked.append(self.pid)
        os.kill(os.getpid(), signal.SIGINT)  # handled at the next bytecode: still in start()
        time.sleep(0.01)

    monkeypatch.setattr(popen_fork.Popen, "_launch", launch_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        run_all(_sleep_after_writing_pid, [(str(tmp_path),)], processes=1)
    assert forked and not _our_child(forked[0])


def _our_child(pid: int) -> bool:
    """Whether ``pid`` is a process whose parent is this one. Not just "alive": on a busy
    machine (pid_max 32768) a reaped child's pid can already belong to someone else."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1]) == os.getpid()
    except FileNotFoundError:
        return False
    except OSError:  # no /proc: alive at all
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True


def test_idle_cores_leave_busy_ones_alone(monkeypatch):
    monkeypatch.setattr(processes, "cores", lambda: 4)
    for load, idle in ((0.0, 4), (1.0, 4), (2.0, 3), (4.2, 1), (30.0, 1)):
        monkeypatch.setattr(os, "getloadavg", lambda load=load: (load, load, load))
        assert processes.idle_cores() == idle, load


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forked children only")
def test_ctrl_c_stops_a_child_forked_from_a_process_that_catches_sigterm(tmp_path, monkeypatch):
    """A parent whose SIGTERM raises KeyboardInterrupt (the demo's handler, left installed
    by an in-process ``main(["demo"])`` before session 26) forks children that inherit it;
    terminated in their first instants, one caught it and slept on: CI hung until pytest's
    300 s timeout. Children are killed now (SIGKILL), which no handler catches."""
    from multiprocessing import popen_fork

    def interrupt(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")

    forked = []
    launch = popen_fork.Popen._launch

    def launch_then_interrupt(self, process_obj):
        launch(self, process_obj)
        forked.append(self.pid)
        os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(popen_fork.Popen, "_launch", launch_then_interrupt)
    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        for _ in range(10):  # the child's first instants: not every run lands there
            started = time.monotonic()
            with pytest.raises(KeyboardInterrupt):
                run_all(_sleep_after_writing_pid, [(str(tmp_path),)], processes=1)
            assert time.monotonic() - started < 30
            assert not _our_child(forked[-1])
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_the_demo_leaves_sigterm_as_it_found_it(tmp_path):
    """``main(["demo", ...])`` turns SIGTERM into KeyboardInterrupt only while it runs."""
    from tidegate.cli import _terminate_as_interrupt

    before = signal.getsignal(signal.SIGTERM)
    with _terminate_as_interrupt():
        assert signal.getsignal(signal.SIGTERM) is not before
    assert signal.getsignal(signal.SIGTERM) is before
