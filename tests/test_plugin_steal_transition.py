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


def _run(monkeypatch, name, steps, workers, threads, fast: bool):
    """(stealing's book changes in order, calls of put_key_in_stealable, steals asked,
    makespan, peaks, bytes) of a twin run with the plugin."""
    monkeypatch.undo()
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
    r = simulate(model, workers=workers, threads_per_worker=threads, policy="tidegate")
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
