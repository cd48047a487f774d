"""Issue 9 item 5, "safe inside dask's scheduler": what review50 found on session 50's main.

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
            errors = client.run_on_scheduler(
                lambda dask_scheduler: dask_scheduler._tidegate.errors)
            assert errors == [], errors
        finally:
            _GATES[gate].set()
        assert client.gather(futures) == [1.0 + i for i in range(8)]
        del futures
        assert client.run_on_scheduler(_books_against_dask) == {}
        if added is not None:
            client.sync(added.close)
        td.uninstall(client)


# -- a completion's decision cost: _split's look for a worker holding less ----------------
def _seed_anomaly(groups: int):
    """tests/test_small_cluster_twin's _anomaly_stores with 4 x ``groups`` loads: each load
    read by its chunk mean (4 to a partial, the partials to one aggregate) and by its
    store, which waits for the aggregate (a root waiting for its own reduction:
    Placement._kept, _by_held, Admission._split)."""
    from dask._task_spec import DataNode, Task, TaskRef

    h = "original-from-zarr"
    dsk: dict = {h: DataNode(h, "a.zarr")}
    durations: dict = {}
    sizes: dict = {h: 56}
    agg = ("mean_agg-aggregate", 0, 0)
    for i in range(4 * groups):
        load, chunk, store = ((g, i, 0, 0) for g in ("from-zarr", "mean_chunk", "store-map"))
        dsk[load] = Task(load, str, TaskRef(h), _data_producer=True)
        dsk[chunk] = Task(chunk, str, TaskRef(load))
        dsk[store] = Task(store, max, TaskRef(load), TaskRef(agg))
        durations.update({load: 0.05 + 0.01 * (i % 3), chunk: 0.0038, store: 0.02})
        sizes.update({load: 32_000_000, chunk: 8_000_000, store: 16})
    for j in range(groups):
        p = ("mean_combine-partial", j, 0, 0)
        dsk[p] = Task(p, max, *(TaskRef(("mean_chunk", 4 * j + i, 0, 0)) for i in range(4)))
        durations[p], sizes[p] = 0.004, 16_000_000
    dsk[agg] = Task(agg, max, *(TaskRef(("mean_combine-partial", j, 0, 0))
                                for j in range(groups)))  # fmt: skip
    durations[agg], sizes[agg] = 0.0124, 8_000_000
    dsk["finalize"] = Task("finalize", max, *(TaskRef(("store-map", i, 0, 0))
                                              for i in range(4 * groups)))  # fmt: skip
    durations["finalize"] = 0.0002
    return dsk, durations, sizes


def test_split_looks_at_each_worker_a_bounded_number_of_times_per_root(monkeypatch):
    """Admission._split (every queued root parked, some worker idle) asks, for each root
    it chose and each worker it may go to in turn, Placement._heavier: the least-held
    running worker found anew over every worker (_held_here, each reading that worker's
    processing tasks; held_choice.py, Placement._heavier) and, first, _faster over every worker
    (_slower). Nothing changes between those asks until a root starts, so a chosen root
    costs workers x workers looks where one pass would do: twin seed anomaly shape, 2
    threads, 8 loads per worker, looks per chosen root per worker 23 at 16 workers, 44 at
    32 (run CPU 72 s at 64 workers against queuing's 2 s; bench/results/
    review50-findings.txt). Bound: a few passes over the workers per chosen root."""
    from tidegate.distributed.hooks import Plugin
    from tidegate.sim import simulate

    counts = {"_held_here": 0, "_slower": 0, "chosen": 0}
    inside = [0]
    split = Plugin._split

    def counted_split(self, *args, **kwargs):
        inside[0] += 1
        try:
            return split(self, *args, **kwargs)
        finally:
            inside[0] -= 1

    monkeypatch.setattr(Plugin, "_split", counted_split)
    for name, key in (("_held_here", "_held_here"), ("_slower", "_slower"),
                      ("_partners", "chosen")):  # (_split asks _partners once per root)
        def counted(self, *args, _original=getattr(Plugin, name), _key=key, **kwargs):
            if inside[0]:
                counts[_key] += 1
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(Plugin, name, counted)
    workers = 24
    dsk, durations, sizes = _seed_anomaly(2 * workers)
    r = simulate(dsk, keys=["finalize"], workers=workers, threads_per_worker=2,
                 policy="tidegate", durations=lambda k: durations.get(k, 0.0),
                 sizes=lambda k: sizes.get(k, 16), thread_lag=0.01, seed=0,
                 record_memory=False)  # fmt: skip
    assert {s.key for s in r.trace.tasks} >= {"finalize"}  # (it completes)
    assert counts["chosen"] > workers, counts  # (_split ran, with roots to look at)
    per = (counts["_held_here"] + counts["_slower"]) / counts["chosen"] / workers
    print(f"\n_split: {counts}, looks per chosen root per worker {per:.1f}")
    assert per <= 4, counts


# -- hooks dask calls outside the replaced methods: a raise there is logged, not dask's ---
def _raise_in(plugin, name):
    def boom(*args, **kwargs):
        raise RuntimeError(f"injected fault in {name}")

    setattr(plugin, name, boom)  # (an instance attribute: this plugin only)


def test_a_fault_in_restart_or_unregister_is_logged_not_raised_into_dask():
    """restart's resync and remove_plugin's uninstall run inside dask's own handlers: a
    raise there would reach dask (logged at every restart) or the client's unregister."""
    with local_cluster(VALIDATING, n_workers=1, threads_per_worker=1) as cluster, \
            Client(cluster) as client:  # fmt: skip
        client.register_plugin(td.Plugin(saturation=1.0), name="tg")
        s = cluster.scheduler
        plugin = s._tidegate
        _raise_in(plugin, "_resync")
        plugin.restart(s)  # (no raise)
        _raise_in(plugin, "uninstall")
        client.unregister_scheduler_plugin("tg")  # (no raise on the client)
        assert "tg" not in s.plugins
        assert {e[0] for e in plugin.errors} == {"restart", "uninstall"}, plugin.errors
        del plugin.uninstall  # (the real one: dask's methods back for the next test)
        plugin.uninstall()
