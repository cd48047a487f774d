"""review50: issue 9 item 5 ("safe inside dask's scheduler") on session 50's main.

A confirmed steal (stealing's move_task_confirm) moves a processing task from its victim
to the thief without a transition: the plugin's books must follow it, as they follow
every other move (a worker's ``processing`` is what its idleness, free threads and load
are judged by).
"""

from __future__ import annotations

import threading
import time

import dask
import pytest
from dask import delayed

distributed = pytest.importorskip("distributed")
from distributed import Client, Worker  # noqa: E402

import tidegate.distributed as td  # noqa: E402
from conftest import VALIDATING, local_cluster  # noqa: E402

pytestmark = pytest.mark.timeout(90)

_GATES: dict = {}  # (the workers are threads of this process: a threading.Event each)


def nap(x, i, gate):
    assert _GATES[gate].wait(30)
    return x + i


def _until(predicate, timeout=20):
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


async def _new_worker(address):
    return await Worker(address, nthreads=1)


def _balance(dask_scheduler):
    """One round of dask's work stealing, now."""
    dask_scheduler.extensions["stealing"].balance()


def _where(dask_scheduler, prefix):
    """{key: the worker dask has it processing on} for the tasks of ``prefix``."""
    return {str(ts.key): ts.processing_on.address for ts in dask_scheduler.tasks.values()
            if str(ts.key).startswith(prefix) and ts.processing_on}  # fmt: skip


def _books_against_dask(dask_scheduler):
    """{worker: (processing in the plugin's books, in dask's)} where they differ."""
    p = dask_scheduler._tidegate
    out = {}
    for ws in dask_scheduler.workers.values():
        book = p.books.workers.get(ws.address)
        n = None if book is None else book.processing
        if n != len(ws.processing):
            out[ws.address] = (n, len(ws.processing))
    return out


def test_a_confirmed_steal_moves_the_task_in_the_books():
    """8 naps held on worker a (2 threads: 6 wait in its queue, stealable: their one
    input is shared by all 8, so not an own input), a worker added idle, a round of
    stealing: some naps move to the new worker and run there (held by the gate). Each
    worker's books then count the tasks dask has processing there. On main the stolen
    naps stay booked to a, so the thief, running one, is booked with nothing processing
    (idle for the progress rule: a root may start there past its count and budget)."""
    gate = "review50-steal"
    _GATES[gate] = threading.Event()
    with dask.config.set(VALIDATING), local_cluster(
        VALIDATING, n_workers=1, threads_per_worker=2
    ) as cluster, Client(cluster) as client:  # fmt: skip
        client.register_plugin(td.Plugin(saturation=1.0))
        (a,) = client.scheduler_info()["workers"]
        with dask.annotate(workers=[a], allow_other_workers=True):
            shared = delayed(float, pure=False)(1)
            naps = [delayed(nap)(shared, i, gate, dask_key_name=f"rvnap-{i:02d}")
                    for i in range(8)]  # fmt: skip
        futures = client.compute(naps, optimize_graph=False)
        added = None
        try:
            _until(lambda: len(client.run_on_scheduler(_where, prefix="rvnap")) == 8)
            added = client.sync(_new_worker, cluster.scheduler_address)
            _until(lambda: added.address in client.scheduler_info()["workers"])

            def stolen():
                client.run_on_scheduler(_balance)
                return added.address in client.run_on_scheduler(_where, prefix="rvnap").values()

            _until(stolen)
            # (the books of a worker change only at transitions and steals: none is under
            # way while every nap waits for the gate)
            off = client.run_on_scheduler(_books_against_dask)
            assert off == {}, off
            assert client.run_on_scheduler(lambda dask_scheduler: dask_scheduler._tidegate.errors) == []
        finally:
            _GATES[gate].set()
        assert client.gather(futures) == [1.0 + i for i in range(8)]
        del futures
        assert client.run_on_scheduler(_books_against_dask) == {}
        if added is not None:
            client.sync(added.close)
        td.uninstall(client)
