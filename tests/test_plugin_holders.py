"""The plugin runs dask's _task_to_msg with widely held inputs' holders listed from a kept
copy (tidegate.distributed.holders): every message is dask's own, holders in the same
order, also after the holders changed (the plugin's replica hooks drop a set's copy before
each change: every change of a task's holders goes through them); the copy is made only
from the expression dask has (else dask's own method stays), and uninstall gives dask's
back."""

from __future__ import annotations

import itertools
from types import SimpleNamespace

import pytest

pytest.importorskip("distributed")
from distributed.scheduler import SchedulerState, WorkerState  # noqa: E402
from distributed.protocol.serialize import ToPickle  # noqa: E402

from distributed.core import Status  # noqa: E402
from test_distributed import (  # noqa: E402
    _bare_state, _installed_copy_then_dask_s_own, _installed_on_bare_state,
)
from tidegate.distributed import holders  # noqa: E402


def _task(deps):
    return SimpleNamespace(
        key="t", run_spec=None, priority=(0,), dependencies=deps, resource_restrictions=None,
        actor=False, annotations={}, group=SimpleNamespace(span_id=None), run_id=None)


def _same(a, b):
    """Two compute-task messages alike but for their stamps (run_id, stimulus_id)."""
    for m in (a, b):
        m.pop("run_id"), m.pop("stimulus_id")
        assert type(m.pop("run_spec")) is ToPickle
    assert a == b
    return a


def test_messages_are_dask_s_with_holders_in_dask_s_order_as_they_change():
    state = _bare_state(nworkers=30, nthreads=1)
    state.validate = False  # (it asserts that every input has a holder: not ``none``)
    workers = list(state.workers.values())
    extra = [WorkerState(address=f"tcp://10.0.1.{i}:1234", status=workers[0].status, pid=0,
                         name=str(i), nthreads=1, memory_limit=1, local_directory="",
                         nanny=None, server_id=str(i), scheduler=state)  # fmt: skip
             for i in range(30)]
    grid = SimpleNamespace(key="grid", nbytes=8, who_has=set(workers[:20]))
    few = SimpleNamespace(key="few", nbytes=1, who_has=set(workers[:3]))
    none = SimpleNamespace(key="none", nbytes=1, who_has=None)
    ts = _task([grid, few, none])  # (dask iterates a set: any iterable does here)
    dask = SchedulerState._task_to_msg
    listed = holders.listing()
    copy = holders.task_to_msg(dask)(listed)
    assert copy.__wrapped__ is dask
    orders = set()
    for step in range(40):
        for _ in range(2):  # the second time from the kept listing
            got = _same(copy(state, ts), dask(state, ts))
            # dask's tuples in dask's order (a worker picks whom to fetch from by it)
            assert got["who_has"]["grid"] == tuple(ws.address for ws in grid.who_has)
        orders.add(got["who_has"]["grid"])
        # churn: drop one holder and add others, so the set's order changes too (each
        # change first drops the kept copy, as the plugin's replica hooks do)
        pool = workers + extra
        listed.kept.pop(id(grid.who_has), None)
        grid.who_has.discard(pool[(7 * step) % len(pool)])
        for ws in itertools.islice(itertools.cycle(pool), 3 * step, 3 * step + 2):
            listed.kept.pop(id(grid.who_has), None)
            grid.who_has.add(ws)
    assert len(orders) > 30


def test_a_kept_listing_is_used_for_the_same_set_until_its_copy_is_dropped():
    workers = [SimpleNamespace(address=f"w{i}") for i in range(20)]
    addresses = holders.listing()
    first = addresses(workers)
    assert addresses(workers) is first  # kept
    assert addresses(list(workers)) == first and addresses(list(workers)) is not first
    addresses.kept.pop(id(workers))  # (the replica hooks, before a change of the holders)
    workers.reverse()  # (a list stands for a set whose order changed: same members)
    assert addresses(workers) == tuple(w.address for w in workers) != first
    assert addresses(workers[:3]) == ("w19", "w18", "w17")  # few: listed, not kept


def test_the_replica_hooks_drop_the_kept_copy_before_the_holders_change():
    """Through dask's own SchedulerState.add_replica, remove_replica, remove_all_replicas
    (the plugin's hooks): the listing after each change is the new holders'."""
    state, plugin = _installed_on_bare_state(saturation=1.0)
    assert plugin._listed is not None
    extra = [WorkerState(address=f"tcp://10.0.1.{i}:1234", status=Status.running, pid=0,
                         name=str(i), nthreads=1, memory_limit=1, local_directory="",
                         nanny=None, server_id=str(i), scheduler=state)  # fmt: skip
             for i in range(12)]
    ts = _Held("grid")
    addresses = _plugin_addresses(plugin)
    for ws in extra[:10]:
        state.add_replica(ts, ws)
    first = addresses(ts.who_has)
    assert addresses(ts.who_has) is first  # kept
    state.remove_replica(ts, extra[3])
    assert addresses(ts.who_has) == tuple(ws.address for ws in ts.who_has) != first
    state.add_replica(ts, extra[11])
    assert addresses(ts.who_has) == tuple(ws.address for ws in ts.who_has)
    assert extra[11].address in addresses(ts.who_has)
    who = ts.who_has
    state.remove_all_replicas(ts)  # (dask's own: no hook needed, install._drops_all_...)
    assert "remove_all_replicas" not in state.__dict__ and ts.who_has is None
    for ws in extra[2:11]:  # new holders: a new set, listed anew (the old one's copy unread)
        state.add_replica(ts, ws)
    assert ts.who_has is not who
    assert addresses(ts.who_has) == tuple(ws.address for ws in ts.who_has)
    plugin.uninstall()


def test_remove_all_replicas_keeps_its_hook_where_dask_calls_it_elsewhere():
    """The hook of remove_all_replicas is left out only while dask's calls it from the
    transitions Plugin.transition stamps after; a scheduler calling it elsewhere keeps it."""
    import tidegate.distributed as td
    from tidegate.distributed import install

    state = _bare_state(nworkers=1, nthreads=1)

    class Elsewhere(type(state)):
        def drop(self, ts):
            self.remove_all_replicas(ts)

    state.__class__ = Elsewhere
    plugin = td.Plugin(saturation=1.0)
    state.plugins["tidegate"] = plugin
    plugin.install(state, apply=lambda recs, stimulus_id: None)
    assert not install._drops_all_in_transitions(state)
    assert state.__dict__["remove_all_replicas"].__wrapped__ is not None
    plugin.uninstall()
    assert "remove_all_replicas" not in state.__dict__


class _Held:
    """What dask's add_replica / remove_replica read of a task in memory."""

    def __init__(self, key):
        self.key, self.state, self.who_has, self.nbytes = key, "memory", None, 8
        self._state = self.state  # (TaskState.state's slot: the add_replica hook reads it)

    def get_nbytes(self):
        return self.nbytes


def _plugin_addresses(plugin):
    """The ``addresses`` the plugin's copy of _task_to_msg calls (its closure variable)."""
    fn = plugin._task_to_msg.__func__
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    return cells[holders.HOOK].cell_contents


def _copies_differently(self, ts):
    return {d.key: [ws.address for ws in d.who_has] for d in ts.dependencies}


def _filters(self, ts):
    return {d.key: tuple(ws.address for ws in d.who_has if ws) for d in ts.dependencies}


@pytest.mark.parametrize("fn", [_copies_differently, _filters, SchedulerState.is_unoccupied])
def test_nothing_is_copied_unless_the_expression_is_as_dask_has_it(fn):
    assert holders.task_to_msg(fn) is None


def test_installed_and_dask_s_own_back_after():
    _installed_copy_then_dask_s_own("_task_to_msg")
