"""The plugin's stealing transition (server._steal_transition) skips dask's calls that
change nothing: a task leaving processing while stealing's books are empty, a task
starting that is never stolen (a root, or its inputs all on its worker). Every change
dask's own transition makes to stealing's books must still happen, in the same order:
here recorded on twin runs where tasks are stolen (running total: half its tasks
stealable, steals made) and where none is (rechunk-add), once with the plugin's
transition and once with dask's own, and compared."""

from __future__ import annotations

import pytest

pytest.importorskip("distributed")
from distributed.stealing import WorkStealing  # noqa: E402

from tidegate.distributed import server  # noqa: E402
from tidegate.sim import simulate  # noqa: E402
from tidegate.sim.model import build_model  # noqa: E402
from tidegate.sim.workloads import build  # noqa: E402


def _run(monkeypatch, name, steps, workers, threads, fast: bool, **kwargs):
    """(stealing's book changes in order, calls of put_key_in_stealable, steals asked,
    makespan, peaks, bytes) of a twin run with the plugin."""
    monkeypatch.undo()
    if not kwargs.pop("fold", True):  # (stealing left in scheduler.plugins: dask calls it)
        monkeypatch.setattr(server, "fold_stealing", lambda plugin, s: None)
    if not fast:
        monkeypatch.setattr(server, "_transition_shape", lambda steal: False)
    changes: list = []
    counts = {"put": 0, "steals": 0, "fast": 0}
    put, remove = WorkStealing.put_key_in_stealable, WorkStealing.remove_key_from_stealable
    add_flight, drop_flight = WorkStealing._add_to_in_flight, WorkStealing._remove_from_in_flight
    request, patch = WorkStealing.move_task_request, server._steal_transition

    def put_(self, ts):
        counts["put"] += 1
        before = self.key_stealable.get(ts)
        put(self, ts)
        if self.key_stealable.get(ts) != before:
            changes.append(("put", ts.key, self.key_stealable.get(ts)))

    def remove_(self, ts):
        if ts in self.key_stealable:
            changes.append(("remove", ts.key))
        remove(self, ts)

    def add_flight_(self, ts, info):
        changes.append(("flight", ts.key))
        add_flight(self, ts, info)

    def drop_flight_(self, ts):
        if ts in self.in_flight:
            changes.append(("landed", ts.key))
        return drop_flight(self, ts)

    def request_(self, *args, **kwargs):
        counts["steals"] += 1
        return request(self, *args, **kwargs)

    def patch_(plugin, steal, original, *args):
        counts["fast"] += 1
        return patch(plugin, steal, original, *args)

    for cls_name, fn in [("put_key_in_stealable", put_), ("remove_key_from_stealable", remove_),
                         ("_add_to_in_flight", add_flight_),
                         ("_remove_from_in_flight", drop_flight_),
                         ("move_task_request", request_)]:
        monkeypatch.setattr(WorkStealing, cls_name, fn)
    monkeypatch.setattr(server, "_steal_transition", patch_)
    w = build(name, steps, 190e6, store=False)
    model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
    r = simulate(model, workers=workers, threads_per_worker=threads, policy="tidegate",
                 **kwargs)  # fmt: skip
    monkeypatch.undo()
    assert counts["fast"] == (1 if fast else 0)
    return (changes, counts["put"], counts["steals"], r.makespan,
            r.peak_memory_per_worker, r.bytes_transferred)


@pytest.mark.parametrize("name,steps,workers,threads,stolen", [
    ("running-total", 100, 4, 2, True),
    ("rechunk-add", 40, 4, 2, False),
])
def test_stealing_books_change_as_with_dasks_own_transition(monkeypatch, name, steps,
                                                            workers, threads, stolen):
    fast = _run(monkeypatch, name, steps, workers, threads, fast=True)
    dask_s = _run(monkeypatch, name, steps, workers, threads, fast=False)
    assert fast[0] == dask_s[0]  # every change to stealing's books, in order
    assert fast[2:] == dask_s[2:]  # steals asked, makespan, peaks, bytes
    puts = sum(c[0] == "put" for c in fast[0])
    if stolen:  # (the case exercises stealing: tasks stored and stolen)
        assert puts > 50 and fast[2] > 0 and any(c[0] == "flight" for c in fast[0])
    else:
        assert puts == 0
    assert puts <= fast[1] < dask_s[1]  # fewer calls: those for tasks never stolen skipped


def test_folded_stealing_changes_its_books_as_when_dask_calls_it(monkeypatch):
    """server.fold_stealing (stealing out of scheduler.plugins, its hooks called first from
    tidegate's): stealing's books change in the same order, with the same steals, schedule,
    peaks and bytes as when dask calls it as a plugin (running total: tasks stored and
    stolen; fold_stealing made a no-op, as server.FOLD_STEALING False did until session 42).
    Without memory samples: the twin's sampling plugin would sit between them."""
    folded = _run(monkeypatch, "running-total", 100, 4, 2, True, fold=True,
                  record_memory=False)  # fmt: skip
    called = _run(monkeypatch, "running-total", 100, 4, 2, True, fold=False,
                  record_memory=False)  # fmt: skip
    assert folded[0] == called[0] and folded[1:] == called[1:]
    assert sum(c[0] == "put" for c in folded[0]) > 50 and folded[2] > 0


@pytest.mark.parametrize("record", [False, True])
def test_stealing_folded_only_just_before_the_plugin_and_put_back_in_its_place(
        monkeypatch, record):  # fmt: skip
    """Folded while tidegate runs where stealing sits just before it in the plugins (the
    twin without memory samples); not where a plugin sits between (with them). Folded,
    tidegate's add_worker / remove_worker run stealing's (its per-worker books);
    uninstall puts it back in its place."""
    from tidegate.distributed import hooks

    seen = []
    new_graph = hooks.Plugin._new_graph

    def spy(self, scheduler, kwargs):
        steal = scheduler.extensions["stealing"]
        seen.append((list(scheduler.plugins), self._folded is not None))
        self.add_worker(scheduler=scheduler, worker="tcp://folded:1")
        seen.append("tcp://folded:1" in steal.stealable)
        self.remove_worker(scheduler=scheduler, worker="tcp://folded:1", stimulus_id="t")
        seen.append("tcp://folded:1" in steal.stealable)
        return new_graph(self, scheduler, kwargs)

    monkeypatch.setattr(hooks.Plugin, "_new_graph", spy)
    uninstall = hooks.Plugin.uninstall
    after = []

    def spy_uninstall(self):
        s = self.scheduler
        uninstall(self)
        if s is not None:
            after.append([type(p).__name__ for p in s.plugins.values()])

    monkeypatch.setattr(hooks.Plugin, "uninstall", spy_uninstall)
    model = build("rechunk-add", 20, 190e6, store=False).model()
    simulate(model, workers=4, threads_per_worker=2, policy="tidegate", record_memory=record)
    (names, folded), added, removed = seen[:3]
    assert folded is not record and added is not record and not removed  # (dask calls it)
    assert any(n.startswith("WorkStealing") for n in names) is record
    assert after[0][-1] == "Plugin" and after[0][-2 - record] == "WorkStealing"


def test_stealing_folded_on_a_local_cluster_past_worker_status_and_put_back():
    """On a LocalCluster stealing sits before the WorkerStatusPlugin, then tidegate
    (register_plugin: added after start()): folded at the first graph, stealing's
    per-worker books follow workers added and removed, and unregistering tidegate puts
    stealing back where it was."""
    import time

    import dask.array as da
    from distributed import Client, LocalCluster

    import tidegate.distributed as td

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                      dashboard_address=":0") as cluster, Client(cluster) as client:  # fmt: skip
        s = cluster.scheduler
        before = list(s.plugins)
        client.register_plugin(td.Plugin(), name="tidegate")
        ours, steal = s.plugins["tidegate"], s.extensions["stealing"]
        x = da.ones((200, 200), chunks=(50, 50))
        assert (x + x.T).sum().compute() == 80000
        assert ours._folded is not None and ours._folded[1] is steal
        assert steal not in s.plugins.values() and "worker-status" in s.plugins
        cluster.scale(3)
        client.wait_for_workers(3, timeout=10)
        assert sorted(steal.stealable) == sorted(s.workers) and len(s.workers) == 3
        assert (x @ x).sum().compute() == 200 * 200 * 200
        cluster.scale(1)
        deadline = time.time() + 10  # (no client call waits for fewer workers)
        while len(s.workers) > 1 and time.time() < deadline:
            time.sleep(0.05)
        assert sorted(steal.stealable) == sorted(s.workers)
        client.unregister_scheduler_plugin("tidegate")
        assert list(s.plugins) == before and ours.errors == []
