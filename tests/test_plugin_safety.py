"""tidegate.distributed inside dask's scheduler when something goes wrong (issue 9, item 5).

A fault injected into each policy call the plugin's hooks make (persistently: every call
raises, through the books' rebuilds too): the computation completes with dask's result,
dask's validation passes, the failure is kept in ``Plugin.errors`` and logged once per
place, and nothing reaches dask's own loop (no error logged by distributed or tornado).
Then the plugin under ordinary trouble: futures cancelled mid-run, two clients at once,
restricted / resourced / retried tasks, ``client.restart()``.
"""

from __future__ import annotations

import logging
import time

import dask
import dask.array as da
import numpy as np
import pytest
from dask import delayed

distributed = pytest.importorskip("distributed")
from distributed import Client, Event, wait  # noqa: E402

import tidegate.distributed as td  # noqa: E402
from tidegate.books import Books  # noqa: E402
from tidegate.distributed import hooks, server  # noqa: E402
from tidegate.testing import QUIET_MEMORY  # noqa: E402

pytestmark = pytest.mark.timeout(90)

CONFIG = {
    "distributed.scheduler.validate": True,
    "distributed.worker.validate": True,
    **QUIET_MEMORY,
}


@pytest.fixture(scope="module")
def cluster():
    with dask.config.set(CONFIG):
        with distributed.LocalCluster(
            n_workers=2, threads_per_worker=2, processes=False, dashboard_address=":0",
            resources={"GPU": 1},
        ) as cluster:  # fmt: skip
            yield cluster


@pytest.fixture
def client(cluster):
    with dask.config.set(CONFIG), Client(cluster) as client:
        yield client
        td.uninstall(client)
        client.run_on_scheduler(lambda dask_scheduler: dask_scheduler.validate_state())


class Records(logging.Handler):
    """Records of the loggers that would show a failure inside dask's loop."""

    LOGGERS = ("tidegate.distributed", "distributed", "tornado", "tornado.application")

    def __init__(self):
        super().__init__(logging.INFO)
        self.records: list = []

    def emit(self, record):
        self.records.append(record)

    def __enter__(self):
        for name in self.LOGGERS:
            logging.getLogger(name).addHandler(self)
        return self

    def __exit__(self, *exc):
        for name in self.LOGGERS:
            logging.getLogger(name).removeHandler(self)

    def failures(self, ours: bool):
        return [
            r for r in self.records
            if (r.name.startswith("tidegate") == ours)
            and (r.levelno >= logging.ERROR or r.exc_info is not None)
        ]  # fmt: skip


def load(i, size=20_000):
    return np.full(size, float(i))


def combine(a, b):
    return float((a + b).sum())


def pairs_graph(n=48, seed=0):
    loads = [delayed(load)(i, dask_key_name=f"ld{seed}-{i * 7919 % 997:03d}") for i in range(n)]
    pairs = [delayed(combine)(loads[2 * i], loads[2 * i + 1]) for i in range(n // 2)]
    return delayed(sum)(pairs)


def stencil_graph(seed=0):
    """Shifted slices (each block read by its neighbours), a reduction; and weights every
    step reads (a shared input)."""
    x = da.random.RandomState(seed).random((400, 400), chunks=(50, 50))
    y = x[1:, 1:] + x[:-1, :-1]
    w = da.ones(50, chunks=50).persist() if False else da.ones(50, chunks=50)
    return (y.sum() + (x[:50, :50].sum(axis=0) * w).sum())


def workload(seed):
    return [pairs_graph(seed=seed), stencil_graph(seed)]


def expected(seed):
    return dask.compute(*workload(seed), scheduler="sync")


def _raise(where):
    def broken(*args, **kwargs):
        raise RuntimeError(f"injected fault in {where}")

    return broken


# where -> (object, attribute) patched for the whole computation (every call raises)
FAULTS = {
    "root": (hooks, "_structural_root"),
    "meeting_plan": (hooks, "meeting_plan"),
    "further_meeting": (hooks, "further_meeting"),
    "meeting_partners": (hooks, "meeting_partners"),
    "place_consumer": (hooks, "place_consumer"),
    "sole_holder": (hooks, "sole_holder"),
    "holds_data": (hooks, "holds_data"),
    "pieces": (hooks, "_pieces"),
    "books.place": (Books, "place"),
    "books.on_run": (Books, "on_run"),
    "books.on_finished": (Books, "on_finished"),
    "books.on_released": (Books, "on_released"),
    "books.on_stopped": (Books, "on_stopped"),
    "books.may_take_some": (Books, "may_take_some"),
    "books.forget_groups": (Books, "forget_groups"),
    "books.add_worker": (Books, "add_worker"),
    "refresh_all": (td.Plugin, "_refresh_all"),
    "measure": (td.Plugin, "_measure"),
    "inputs_all_here": (server, "_inputs_all_here"),
    "thief": (server, "_scan"),
}


@pytest.mark.parametrize("where", sorted(FAULTS))
def test_a_persistent_fault_anywhere_leaves_dask_running(client, where):
    want = expected(1)
    client.register_plugin(td.Plugin(saturation=1.1, memory_limit="1GB", interval="50ms"))
    obj, attr = FAULTS[where]
    saved = obj.__dict__[attr]
    with Records() as log:
        setattr(obj, attr, _raise(where))
        try:
            got = dask.compute(*workload(1))
        finally:
            setattr(obj, attr, saved)
    errors = client.run_on_scheduler(lambda dask_scheduler: list(dask_scheduler._tidegate.errors))
    others = [f"{r.name}: {r.getMessage()}" for r in log.failures(ours=False)]
    logged = [r.args[0] if r.args else r.getMessage() for r in log.failures(ours=True)]
    print(f"\n{where}: errors {sorted({e[0] for e in errors})} ({len(errors)}), "
          f"logged {logged}, dask's {others[:3]} ({len(others)})")
    assert got == want
    assert not others, others  # nothing reached dask's loop
    assert len(logged) == len(set(logged)), logged  # once per place
    assert {e[0] for e in errors} <= set(logged)


def test_a_fault_in_the_thief_search_falls_back_to_dasks_search(monkeypatch):
    """The faster thief search (server._fast_thief, replacing the stealing extension's
    _get_thief) raising: dask's own search answers that call, the run completes, the
    failure is logged once. Before, it escaped into dask's balance at every round."""
    from tidegate.sim import simulate
    from tidegate.sim.model import build_model
    from tidegate.sim.workloads import build

    from distributed.stealing import WorkStealing

    if not server._thief_shape(object.__new__(WorkStealing)):
        pytest.skip("this distributed picks thieves with a module function: not replaced")
    monkeypatch.setattr(server, "_inputs_all_here", lambda ts: False)  # (more to steal)
    monkeypatch.setattr(server, "_scan", _raise("thief"))
    monkeypatch.setattr(server._Thieves, "best", _raise("thief"))
    w = build("anomaly", 150, 190e6, store=False)
    model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
    with Records() as log:
        r = simulate(model, workers=100, threads_per_worker=4, policy="tidegate",
                     bandwidth="1GB/s", record_memory=False)  # fmt: skip
    assert len(r.trace.tasks) == len(model.dsk)
    logged = [r.args[0] for r in log.failures(ours=True)]
    assert logged == ["_get_thief"], logged
    assert not log.failures(ours=False)
