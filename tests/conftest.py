"""Shared helpers for the collection, error and callback tests."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import subprocess
import sys
import threading

import dask
import pytest

import tidegate
from tidegate.testing import QUIET_MEMORY


def run_fresh(script: str, *args, spill_dir, flags: tuple = ()) -> dict:
    """``script`` run in a fresh interpreter (its own RSS baseline: what memory_limit is
    measured from) with ``args``, spill files under ``spill_dir``: the JSON its last line
    prints. A failing script fails the test with its stderr."""
    proc = subprocess.run(
        [sys.executable, *flags, "-c", script, *map(str, args)],
        capture_output=True, text=True, timeout=600,
        env={**os.environ, "DASK_TIDEGATE__SPILL_DIRECTORY": str(spill_dir)},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


# The LocalCluster tests' dask config: dask's own validation on scheduler and workers, and no
# memory thresholds (no spilling, pausing or terminating).
VALIDATING = {
    "distributed.scheduler.validate": True,
    "distributed.worker.validate": True,
    **QUIET_MEMORY,
}


@contextlib.contextmanager
def local_cluster(config=VALIDATING, **kwargs):
    """An in-process ``distributed.LocalCluster(**kwargs)`` (no dashboard) under dask config
    ``config``."""
    import distributed

    with dask.config.set(config), distributed.LocalCluster(
            processes=False, dashboard_address=":0", **kwargs) as cluster:
        yield cluster


@contextlib.contextmanager
def local_client(config=VALIDATING, **kwargs):
    """:func:`local_cluster` and a Client of it, under ``config``."""
    import distributed

    with local_cluster(config, **kwargs) as cluster, distributed.Client(cluster) as client:
        yield client


def thread_names():
    """``(where, seen)``: ``where(x)`` returns ``x`` and adds the name of the thread that runs
    it to the set ``seen``."""
    seen: set = set()
    lock = threading.Lock()

    def where(x):
        with lock:
            seen.add(threading.current_thread().name)
        return x

    return where, seen


def tidegate_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("tidegate-")]


def join_tidegate_threads(timeout: float = 60) -> list[str]:
    """Wait for tidegate's threads to end; the names of those still alive after ``timeout``.

    A failed or interrupted get() returns at once and leaves its threads to finish the
    task they run (as dask's threaded scheduler leaves its pool): they must end once it does.
    """
    for t in tidegate_threads():
        t.join(timeout)
    return [t.name for t in tidegate_threads()]


@pytest.fixture
def no_leaked_tidegate_threads():
    """Every get() must stop its threads, on success and on failure alike.

    Used by test_collections/test_errors/test_callbacks through ``pytestmark``."""
    assert join_tidegate_threads() == []
    yield
    assert join_tidegate_threads() == []


def tidegate_get(**kwargs):
    """``tidegate.get`` with options bound and the core's invariants checked after every event."""
    kwargs.setdefault("validate", True)
    return functools.partial(tidegate.get, **kwargs)


# Scheduler settings worth covering: both policies, both orders, one and several threads.
SETTINGS = [
    pytest.param(dict(policy="tidegate", order="dfs", num_workers=1), id="tidegate-dfs-1"),
    pytest.param(dict(policy="tidegate", order="dask", num_workers=4), id="tidegate-dask-4"),
    pytest.param(dict(policy="priority", order="dfs", num_workers=4), id="priority-dfs-4"),
    pytest.param(dict(policy="priority", order="dask", num_workers=1), id="priority-dask-1"),
]


@pytest.fixture(params=SETTINGS)
def settings(request) -> dict:
    return dict(request.param)


@pytest.fixture
def make_scheduler():
    """The ``tidegate_get`` factory, for tests that bind their own options."""
    return tidegate_get


@pytest.fixture
def scheduler(settings):
    """A tidegate scheduler for each of SETTINGS, validating its invariants."""
    return tidegate_get(**settings)


def scheduler_workers(client) -> list[str]:
    """The workers the scheduler knows, read on the scheduler itself: ``client.scheduler_info()``
    can return an empty ``"workers"`` when the client's periodic identity update (which asks
    for no workers) lands after the explicit one."""
    return sorted(client.run_on_scheduler(_worker_addresses))


def _worker_addresses(dask_scheduler) -> list[str]:
    return list(dask_scheduler.workers)


def twin_trace(name: str = "vorticity", steps: int = 200, workers: int = 20) -> tuple[list, list]:
    """The full trace of a tidegate twin run, (tasks, transfers) as tuples: workload
    ``name``, ``steps`` steps of 190 MB, ``workers`` workers x 4 threads, 1 GB/s. Tests that
    a shortcut in the plugin schedules exactly as the long way compare two of these."""
    from dataclasses import astuple

    from tidegate.sim import simulate
    from tidegate.sim.model import build_model
    from tidegate.sim.workloads import build

    w = build(name, steps, 190e6, store=False)
    model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
    r = simulate(model, workers=workers, threads_per_worker=4, policy="tidegate",
                 bandwidth="1GB/s", record_memory=False)  # fmt: skip
    return [astuple(t) for t in r.trace.tasks], [astuple(t) for t in r.trace.transfers]


def twin_vorticity_trace() -> tuple[list, list]:
    """twin_trace of vorticity: 200 steps, 20 workers x 4 threads."""
    return twin_trace("vorticity", 200, 20)
