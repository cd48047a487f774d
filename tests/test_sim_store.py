"""The twin's store form of the seed workloads (issue 8): as a computed ``da.store`` /
``to_zarr`` reaches the scheduler, per-chunk stores returning ``None`` and one final task
over all of them, which is the only output."""

from __future__ import annotations

import json

import dask
import dask.array as da
import pytest
from dask.core import flatten
from dask.sizeof import sizeof
from dask.utils import key_split

from tidegate.cli import main
from tidegate.sim import simulate
from tidegate.sim.workloads import WORKLOADS, NoData, build

STORE_GROUPS = {"store-map", "vorticity-store"}


class _Sent(Exception):
    pass


def _sent(run) -> tuple[dict, list]:
    """The graph and output keys that ``run(scheduler=...)`` hands dask's scheduler, as
    ``Client.get`` would receive them (nothing runs)."""
    got = {}

    def capture(expr, keys, **kw):
        got["graph"], got["keys"] = dict(expr.__dask_graph__()), list(flatten(keys))
        raise _Sent

    with pytest.raises(_Sent):
        run(scheduler=capture)
    return got["graph"], got["keys"]


def test_a_computed_store_ends_in_one_final_task_over_every_store():
    """What the store form copies: dask's own ``da.store(x, target)`` (compute=True), and
    ``dask.compute`` of ``da.store(..., compute=False)`` (Client.compute's graph is built
    the same way: FinalizeCompute, then optimize)."""
    a = da.from_array(NoData((5, 4, 4)), chunks=(1, 4, 4), name="open-u")
    for run in (lambda **kw: da.store(a + 1, NoData((5, 4, 4)), lock=False, **kw),
                lambda **kw: dask.compute(da.store(a + 1, NoData((5, 4, 4)), lock=False,
                                                   compute=False), **kw)):
        graph, keys = _sent(run)
        (final,) = keys
        assert key_split(final) == "finalize-hlgfinalizecompute"
        stores = {k for k in graph if key_split(k) == "store-map"}
        assert len(stores) == 5  # one per chunk, the load and the add fused into each
        assert set(graph) == stores | {final, "original-open-u"}
        assert set(graph[final].dependencies) == stores


@pytest.mark.parametrize("name", sorted(WORKLOADS))
def test_store_form_is_todays_graph_plus_the_final_task(name):
    today = build(name, 6, 4e6, store=False).model()
    w = build(name, 6, 4e6, store=True)
    m = w.model()
    (final,) = m.keys
    stores = set(today.keys)  # today's outputs: the stores (or aliases of them)
    assert len(stores) >= 5 and {key_split(k) for k in stores} <= STORE_GROUPS
    assert set(m.dsk) == set(today.dsk) | {final}
    assert set(m.dsk[final].dependencies) == stores
    assert not any(stores & set(n.dependencies) for k, n in m.dsk.items() if k != final)
    # what a store returns is None: the stores, and the reduce-and-store tasks they alias
    changed = {k for k in today.dsk if m.sizes[k] != today.sizes[k]}
    assert stores <= changed and {m.sizes[k] for k in changed} == {sizeof(None)}
    assert {key_split(k) for k in changed} <= STORE_GROUPS | {
        "sum-aggregate-store-map", "cumsum-store-map"}
    for k in today.dsk:  # the work is the same: a store still writes its chunk
        assert m.durations[k] == today.durations[k]
    assert max(m.durations[k] for k in changed) > 10 * m.durations[final]
    if name != "vorticity":  # a collection: the graph dask.compute sends, key for key
        graph, (sent,) = _sent(lambda **kw: dask.compute(w.graph, **kw))
        # but the final task's name: dask's token differs per call, the twin's does not
        assert key_split(sent) == key_split(final) == "finalize-hlgfinalizecompute"
        assert set(graph) - {sent} == set(m.dsk) - {final}
        assert graph[sent].dependencies == m.dsk[final].dependencies
        assert build(name, 6, 4e6, store=True).model().keys == [final]  # stable


def _running_at_once(result) -> int:
    """Most tasks running at once on one worker, from the trace."""
    most = 0
    by_worker: dict = {}
    for t in result.trace.tasks:
        by_worker.setdefault(t.worker, []).extend([(t.start, 1), (t.stop, -1)])
    for events in by_worker.values():
        n = 0
        for _, d in sorted(events, key=lambda e: (e[0], e[1])):
            n += d
            most = max(most, n)
    return most


def test_plugin_does_not_count_the_stores_nones_as_data_in_flight():
    """weighted's stores are roots (their only inputs are the shared weights) whose None
    waits for the final task. Counted as data in flight (before bbb9a26), they filled the
    root slots and the plugin ran 1.75x queue's makespan here (84.8 s against 48.4) and
    3.9x at 20x4; the form without a final task showed nothing (49.8 s either way)."""
    m = build("weighted", 40, 190e6, store=True).model()
    queue, plugin = simulate(m, workers=2, threads_per_worker=2, policy=["queue", "tidegate"])
    assert plugin.makespan <= 1.1 * queue.makespan, (plugin.makespan, queue.makespan)
    assert max(plugin.peak_memory_per_worker) <= max(queue.peak_memory_per_worker)
    assert _running_at_once(plugin) == 2  # both threads busy, not one store at a time


def test_cli_simulates_the_store_form_unless_asked_to_persist(tmp_path):
    out = tmp_path / "r.json"
    argv = ["simulate", "--workload", "weighted", "--steps", "8", "--chunk", "4MB",
            "--workers", "2", "--threads", "2", "--policy", "queue,tidegate", "--json", str(out)]
    assert main(argv) == 0
    got = json.loads(out.read_text())
    w = build("weighted", 8, 4e6, store=True)
    direct = simulate(w.model(), workers=2, threads_per_worker=2, policy=["queue", "tidegate"])
    for r in direct:
        assert got[r.policy]["makespan"] == r.makespan
        assert got[r.policy]["peak_memory_per_worker"] == r.peak_memory_per_worker
    assert main(argv + ["--persist"]) == 0  # the stores are the outputs
    today = build("weighted", 8, 4e6, store=False)
    direct = simulate(today.graph, keys=today.keys, sizes=today.sizes, workers=2,
                      threads_per_worker=2, policy="queue")
    assert json.loads(out.read_text())["queue"]["makespan"] == direct.makespan


def test_held_stores_keep_their_worker_from_taking_roots_past_its_count():
    """vorticity's stores read three shared grids; the plugin holds each store until a copy
    of the grids reaches its worker. Before, a worker whose stores were all held looked idle,
    and the progress rule let it load a root pair per load past its count: 5.70 GB per
    worker against queue's 3.99 (makespan 56.7 s, queue 77.5); now 2.09 GB in 22.9 s."""
    m = build("vorticity", 200, 190e6, store=True).model()
    queue, tide = simulate(m, workers=20, threads_per_worker=4, bandwidth="200MB/s",
                           policy=["queue", "tidegate"], record_memory=False, processes=1)
    assert max(tide.peak_memory_per_worker) < 0.6 * max(queue.peak_memory_per_worker)
    assert tide.makespan <= queue.makespan
