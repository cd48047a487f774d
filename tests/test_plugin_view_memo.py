"""The kept combine views (session 40, cpu40a; switch hooks.VIEW_MEMO until session 42): the
combine view (Plugin._combines_of) kept per worker is never stale: at the end of every
transition the plugin sees, every kept view is the view found anew, also right after a
replica is added to (and dropped from) a task a kept view read; a note of a new combine, a
steal confirmed and each dropped stamp are checked too. A mutant that skips one stamp leaves
a stale view here."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

pytest.importorskip("distributed")
from tidegate.distributed import hooks, install, placement  # noqa: E402


def _stale(plugin) -> list:
    """The kept views that differ from the view found anew (on a copy: nothing pruned)."""
    out = []
    for addr, kept in list(plugin._views.items()):
        combs = plugin._combines.get(addr)
        if combs is None:
            continue  # (never read: _combines_of answers [] first)
        fresh = plugin._combines_found(addr, dict(combs))
        plugin._combines[addr] = combs  # (put back where the copy emptied)
        if fresh != kept:
            out.append((addr, kept, fresh))
    return out


def _run(monkeypatch, mutant=None) -> dict:
    """Twin anomaly 400 steps, 40 x 4, every kept view checked at the end of every
    transition; at every 7th, a replica of a memory task a kept view read added on that
    view's worker (through dask's add_replica, which the plugin hooked), checked, dropped
    again (remove_replica), checked."""
    from tidegate.sim import simulate
    from tidegate.sim.model import build_model
    from tidegate.sim.workloads import build

    seen = {"checks": 0, "stale": [], "replicas": 0, "transitions": 0}
    transition = hooks.Plugin.transition

    def checked(self, key, start, finish, *args, **kwargs):
        hide = mutant == "transition" and self.scheduler is not None
        kept = self._viewed.pop(key, None) if hide else None
        try:
            return transition(self, key, start, finish, *args, **kwargs)
        finally:
            if kept is not None:
                self._viewed.setdefault(key, set()).update(kept)
            if self.scheduler is not None:
                seen["transitions"] += 1
                seen["checks"] += len(self._views)
                seen["stale"] += _stale(self)
                if seen["transitions"] % 7 == 0:
                    _move_a_replica(self)

    def _move_a_replica(plugin):
        s = plugin.scheduler
        for addr in list(plugin._views):
            ws = s.workers.get(addr)
            for d in plugin._combines.get(addr, {}).values():
                for x in d.dependencies:
                    if x.state == "memory" and ws is not None and ws not in x.who_has:
                        s.add_replica(x, ws)
                        seen["replicas"] += 1
                        seen["stale"] += _stale(plugin)
                        s.remove_replica(x, ws)
                        seen["stale"] += _stale(plugin)
                        return

    monkeypatch.setattr(hooks.Plugin, "transition", checked)
    if mutant == "replica":
        replicas = placement.Placement._replicas

        def unstamped(self, original):
            f = replicas(self, original)
            plugin = self

            def g(ts, *a):
                kept = plugin._viewed.pop(ts.key, None)
                try:
                    return f(ts, *a)
                finally:
                    if kept is not None:
                        plugin._viewed.setdefault(ts.key, set()).update(kept)
            g.__name__, g.__wrapped__ = f.__name__, f.__wrapped__
            return g

        monkeypatch.setattr(placement.Placement, "_replicas", unstamped)
    w = build("anomaly", 400, 190e6, store=False)
    model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
    r = simulate(model, workers=40, threads_per_worker=4, policy="tidegate",
                 bandwidth="1GB/s", record_memory=False)
    assert len(r.trace.tasks) == len(model.dsk)
    return seen


def test_kept_views_are_the_views_found_anew(monkeypatch):
    seen = _run(monkeypatch)
    assert seen["stale"] == [], seen["stale"][:3]
    assert seen["checks"] > 1000 and seen["replicas"] > 20, seen


@pytest.mark.parametrize("mutant", ["transition", "replica"])
def test_a_skipped_stamp_leaves_a_stale_view(monkeypatch, mutant):
    """(the check above catches each stamp skipped)"""
    seen = _run(monkeypatch, mutant)
    assert len(seen["stale"]) > 10, seen


def _fake_plugin(**kw):
    p = SimpleNamespace(_views={}, _viewed={}, **kw)
    p._view_moved = lambda key: hooks.Plugin._view_moved(p, key)
    p._combines_found = lambda addr, combs, read=None: hooks.Plugin._combines_found(
        p, addr, combs, read)
    return p


def test_a_new_combine_noted_drops_the_workers_kept_view():
    prefix = object()  # (dask's TaskState.prefix is its group's)
    group = SimpleNamespace(prefix=prefix)
    a = SimpleNamespace(group=group, prefix=prefix, key="a")
    b = SimpleNamespace(group=group, prefix=prefix, key="b")
    d = SimpleNamespace(group=SimpleNamespace(prefix=prefix), prefix=prefix,
                        dependencies=[a, b], key="d")
    a.dependents = b.dependents = [d]
    p = _fake_plugin(_combines={})
    p._views = {"w": [(1, 1, True)], "v": [(2, 2, True)]}
    hooks.Plugin._note_combine(p, a, "w")
    assert p._combines == {"w": {"d": d}} and p._views == {"v": [(2, 2, True)]}


def test_a_steal_confirmed_drops_the_views_that_read_its_task():
    """The steal-response handler (stealing's move_task_confirm: processing_on set without
    a transition) is wrapped at install (_watch_steals) and put back at uninstall; kept
    views are kept only while it is the wrapped one (_steals_seen)."""
    calls = []

    def confirm(*, key, state, stimulus_id, worker=None):
        calls.append(key)

    s = SimpleNamespace(stream_handlers={"steal-response": confirm})
    p = _fake_plugin(_steal_confirmed=None, scheduler=s)
    moved = []
    p._stolen = moved.append  # (the books' move: tests/test_plugin_contract.py)
    install.Install._watch_steals(p, s)
    handler = s.stream_handlers["steal-response"]
    assert handler is not confirm and handler.__wrapped__ is confirm
    assert install.Install._steals_seen(p)
    p._views = {"w": [(1, 1, True)], "v": [(2, 2, True)]}
    p._viewed = {"x": {"w"}, "y": {"v"}}
    handler(key="x", state="waiting", stimulus_id="s", worker="w")
    assert calls == ["x"] and p._views == {"v": [(2, 2, True)]} and "x" not in p._viewed
    assert moved == ["x"]  # (asked after dask's handler, whatever its answer)
    s.stream_handlers["steal-response"] = confirm  # (another's handler: no view kept)
    assert not install.Install._steals_seen(p)


def test_the_steal_handler_is_put_back_at_uninstall():
    from tidegate.sim import simulate
    from tidegate.sim.model import build_model
    from tidegate.sim.workloads import build

    plugins = []
    original = hooks.Plugin.install

    def recording(self, scheduler, apply=None):
        plugins.append((self, scheduler, scheduler.stream_handlers.get("steal-response")))
        return original(self, scheduler, apply)

    hooks.Plugin.install = recording
    try:
        w = build("anomaly", 100, 190e6, store=False)
        model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
        simulate(model, workers=4, threads_per_worker=4, policy="tidegate",
                 bandwidth="1GB/s", record_memory=False, stealing=True)
    finally:
        hooks.Plugin.install = original
    ((plugin, s, before),) = plugins
    assert before is not None and plugin._steal_confirmed is None
    assert s.stream_handlers["steal-response"] is before


def test_a_view_that_read_a_released_task_is_not_kept():
    """A task's move released -> waiting is not stamped (Plugin.transition returns first):
    a view that read a released task is answered, not kept."""

    class W:
        address = "a"

    def task(key, state, who=False, deps=()):
        return SimpleNamespace(key=key, _state=state, who_has={W()} if who else None,
                               processing_on=None, dependencies=list(deps))

    for state, kept in (("released", False), ("waiting", True)):
        deep = task("deep", state)
        inputs = [task("x", "memory", True), task("y", "memory", True),
                  task("z", "waiting", deps=[deep])]
        d = task("d", "waiting", deps=inputs)
        p = _fake_plugin(_combines={"a": {"d": d}}, _steals_seen=lambda: True)
        out = hooks.Plugin._combines_kept(p, "a", p._combines["a"])
        assert out == [(2, 2, state == "waiting")]
        assert (p._views == {"a": out}) is kept, p._views
        assert set(p._viewed) == ({"d", "x", "y", "z", "deep"} if kept else set())
