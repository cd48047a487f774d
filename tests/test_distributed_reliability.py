"""tidegate.distributed under trouble: a worker killed mid-run, a worker leaving while dask
validates every transition, a client that disconnects mid-run and one that resubmits.

After each, the plugin's books (roots processing and their estimates, untouched root
outputs, dask's queue) must return to zero: nothing stuck, nothing counted twice.
"""

from __future__ import annotations

import os
import signal
import time

import dask
import numpy as np
import pytest
from dask import delayed

distributed = pytest.importorskip("distributed")
from distributed import Client, wait  # noqa: E402

import tidegate.distributed as td  # noqa: E402
from tidegate.testing import QUIET_MEMORY  # noqa: E402
from conftest import scheduler_workers  # noqa: E402

pytestmark = pytest.mark.timeout(90)

QUIET = QUIET_MEMORY
VALIDATE = {**QUIET, "distributed.scheduler.validate": True, "distributed.worker.validate": True}


def load(i, path, delay):
    """A loader that leaves a line in ``path`` (a shared file) each time it runs."""
    time.sleep(delay)
    with open(path, "a") as f:
        f.write(f"{i}\n")
    return np.full(10_000, float(i))


def combine(a, b):
    return float((a + b).sum())


def graph(path, n=40, delay=0.1, prefix="load"):
    """Unique-key loaders combined in pairs, then summed; and the expected total."""
    loads = [
        delayed(load)(i, path, delay, dask_key_name=f"{prefix}-{i:03d}-x{i * 7919 % 1000}")
        for i in range(n)
    ]
    pairs = [delayed(combine)(loads[2 * i], loads[2 * i + 1]) for i in range(n // 2)]
    return delayed(sum)(pairs, dask_key_name=f"{prefix}-total"), 10_000.0 * sum(range(n))


def _lines(path) -> int:
    try:
        with open(path) as f:
            return sum(1 for _ in f)
    except FileNotFoundError:
        return 0


def _wait_for(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def _books(dask_scheduler) -> dict:
    """The plugin's books, and dask's queue and task table, on the scheduler."""
    p = dask_scheduler._tidegate
    assert p.errors == [], p.errors
    p.books.validate()
    live = set(dask_scheduler.workers)
    for ws in dask_scheduler.workers.values():  # recount from dask's state
        book = p.books.workers[ws.address]
        assert book.processing == len(ws.processing), ws.address
        assert book.roots_processing == sum(1 for ts in ws.processing if p._root(ts))
    return {
        "tasks": len(dask_scheduler.tasks),
        "queued": len(dask_scheduler.queued),
        "processing": len(p.books._processing),
        "roots_processing": sum(b.roots_processing for b in p.books.workers.values()),
        "estimated": round(sum(b.estimated for b in p.books.workers.values()), 6),
        "untouched": len(p.books._carriers),
        "untouched_n": sum(b.roots_untouched for b in p.books.workers.values()),
        "stale_workers": sorted(a for a in p.books.workers if a not in live),
    }


ZERO = {"tasks": 0, "queued": 0, "processing": 0, "roots_processing": 0, "estimated": 0,
        "untouched": 0, "untouched_n": 0, "stale_workers": []}  # fmt: skip


def _settles_to_zero(client, timeout=20):
    """Once nothing is wanted, the scheduler forgets every task and the books are empty."""
    deadline = time.monotonic() + timeout
    while True:
        books = client.run_on_scheduler(_books)
        if books == ZERO or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert books == ZERO


@pytest.fixture
def process_cluster():
    with dask.config.set(QUIET):
        with td.LocalCluster(
            n_workers=3, threads_per_worker=1, processes=True, dashboard_address=":0",
            plugin=td.Plugin(saturation=1.1, memory_limit="50MB", interval="100ms"),
        ) as cluster:  # fmt: skip
            yield cluster


# -- a worker killed mid-run ------------------------------------------------------------
def test_worker_killed_mid_run_completes(process_cluster, tmp_path):
    path = str(tmp_path / "ran")
    total, expected = graph(path, n=48, delay=0.2)
    with Client(process_cluster) as client:
        assert td.installed(client)
        future = client.compute(total)
        _wait_for(lambda: _lines(path) >= 10, 60, "ten loaders to finish")
        assert not future.done()
        # the worker holding the most results: its loss forces recomputation
        has_what = client.has_what()
        victim = max(has_what, key=lambda w: len(has_what[w]))
        pid = client.run(os.getpid, workers=[victim])[victim]
        os.kill(pid, signal.SIGKILL)
        assert future.result(timeout=60) == expected
        ran = _lines(path)
        print(f"loaders run: {ran} for 48 loaders (lost results recomputed)")
        if has_what[victim]:  # held results were needed still: their loaders ran again
            assert ran > 48
        books = client.run_on_scheduler(_books)
        assert books["queued"] == books["roots_processing"] == books["processing"] == 0
        assert books["stale_workers"] == []
        del future
        _settles_to_zero(client)


# -- distributed's validate mode with a worker leaving mid-run ---------------------------
@pytest.mark.parametrize("how", ["retire", "remove"])
def test_validate_mode_with_a_worker_leaving(tmp_path, how):
    """dask validates its whole state on every transition while tidegate decides, and a
    worker leaves mid-run: gracefully (retire: data moved) or abruptly (removed)."""
    path = str(tmp_path / "ran")
    with dask.config.set(VALIDATE):
        with td.LocalCluster(
            n_workers=3, threads_per_worker=1, processes=False, dashboard_address=":0",
            plugin=td.Plugin(saturation=1.1, memory_limit="50MB", interval="100ms"),
        ) as cluster, Client(cluster) as client:  # fmt: skip
            total, expected = graph(path, n=40, delay=0.05)
            future = client.compute(total)
            _wait_for(lambda: _lines(path) >= 8, 60, "eight loaders to finish")
            has_what = client.has_what()
            victim = max(has_what, key=lambda w: len(has_what[w]))
            if how == "retire":
                client.retire_workers([victim], close_workers=True)
            else:

                async def remove(dask_scheduler, address):
                    await dask_scheduler.remove_worker(address, stimulus_id="test-remove")

                client.run_on_scheduler(remove, address=victim)
            assert future.result(timeout=60) == expected
            assert victim not in scheduler_workers(client)
            client.run_on_scheduler(lambda dask_scheduler: dask_scheduler.validate_state())
            del future
            _settles_to_zero(client)


# -- a client that disconnects mid-run, and one that resubmits ---------------------------
def test_client_disconnect_and_resubmit(process_cluster, tmp_path):
    path = str(tmp_path / "ran")
    total, expected = graph(path, n=48, delay=0.2, prefix="same")
    first = Client(process_cluster)
    try:
        future = first.compute(total)
        _wait_for(lambda: _lines(path) >= 6, 60, "six loaders to finish")
        assert not future.done()
        queued = first.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.queued))
        assert queued > 0  # tidegate was withholding roots when the client left
    finally:
        first.close()
    with Client(process_cluster) as second:
        _settles_to_zero(second)  # the departed client's work is forgotten, books empty
        # Tasks already executing when the client left run to their end on the workers.
        _wait_for(
            lambda: not any(second.run(lambda dask_worker: len(dask_worker.state.tasks)).values()),
            20, "the workers to drop the departed client's tasks",
        )  # fmt: skip
        ran_before = _lines(path)
        total, _ = graph(path, n=48, delay=0.2, prefix="same")  # the same keys again
        future = second.compute(total)
        assert future.result(timeout=60) == expected
        assert _lines(path) - ran_before == 48  # every loader ran once more, none skipped
        del future
        _settles_to_zero(second)


# -- a departed worker's books stay gone --------------------------------------------------
def slow_sum(x):
    time.sleep(2)
    return float(x.sum())


def test_departed_worker_is_not_counted_again(tmp_path):
    """A root output held on worker A and copied to B; A leaves before any consumer of the
    output has finished; later a consumer finishes on B. The plugin used to decrement A's
    untouched-root count then, recreating a book for the departed worker at -1: a new worker
    at A's address (a fixed port, a restarted worker) would have been let over its cap."""
    with dask.config.set(VALIDATE):
        with td.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0",
            plugin=td.Plugin(saturation=1.1, interval="100ms"),
        ) as cluster, Client(cluster) as client:  # fmt: skip
            x = delayed(load)(0, str(tmp_path / "ran"), 0.0, dask_key_name="load-only")
            future = client.compute(delayed(slow_sum)(x, dask_key_name="slow-sum"))
            _wait_for(lambda: _lines(tmp_path / "ran") == 1, 20, "the loader")

            def where_and_untouched(dask_scheduler):
                ts = dask_scheduler.tasks["load-only"]
                live = dask_scheduler._tidegate.books._live.get("load-only")
                # (who_has is None until the result is in memory on older distributed)
                return sorted(ws.address for ws in ts.who_has or ()), live and live[0]

            # (the loader's line is written before the scheduler hears it finished)
            _wait_for(lambda: client.run_on_scheduler(where_and_untouched)[0], 20, "its result")
            (a,), untouched = client.run_on_scheduler(where_and_untouched)
            assert untouched == a  # held on A, no consumer finished yet (slow_sum runs)

            async def replicate_then_remove(dask_scheduler, address):
                await dask_scheduler.replicate(keys=["load-only"], n=2, stimulus_id="test")
                assert len(dask_scheduler.tasks["load-only"].who_has) == 2
                await dask_scheduler.remove_worker(address, stimulus_id="test-remove")
                # The loaded data survives on B: the root's slot is counted there now.
                p = dask_scheduler._tidegate
                (b,) = dask_scheduler.workers
                return p.books._live["load-only"][0], b, p.books.workers[b].roots_untouched

            moved_to, b, untouched_b = client.run_on_scheduler(replicate_then_remove, address=a)
            assert moved_to == b != a and untouched_b == 1
            assert future.result(timeout=30) == 0.0  # slow_sum ran again on B
            books = client.run_on_scheduler(_books)
            assert books["stale_workers"] == [], books
            del future
            _settles_to_zero(client)
