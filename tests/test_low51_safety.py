"""Session 50's open LOW findings in the plugin (issue 9 item 5, safe inside dask's
scheduler; bench/results/low51-findings.txt): a departed worker's group verdicts and wave
share, a landed root's judged-small entry, the wake of roots parked on a leaving worker,
first-share entries of roots nobody parked, a confirmed steal's stamp of kept walks. Each
test fails on main 9b8221d."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest

pytest.importorskip("distributed")
from tidegate import policy  # noqa: E402
from tidegate.books import Books  # noqa: E402
from tidegate.distributed import hooks  # noqa: E402
from tidegate.policy import Policy  # noqa: E402
from tidegate.sim import simulate  # noqa: E402
from tidegate.sim.workloads import build  # noqa: E402
from test_plugin_lazy import _cluster  # noqa: E402

NAN = math.nan


class _Task:  # a queued TaskState: hashed by identity
    def __init__(self, key) -> None:
        self.key, self._state, self.priority = key, "queued", (0,)


def _plugin(n):
    """A plugin on a stand-in scheduler of n workers (w0...), its books and sets fresh."""
    s = _cluster(n)
    s.tasks = {}
    p = hooks.Plugin()
    p._resync()  # (no scheduler yet: the books and sets alone)
    p.scheduler = s
    return s, p


def _leave(s, p, addr):
    gone = s.workers.pop(addr)
    s.running.discard(gone)
    p.remove_worker(s, addr)
    assert p.errors == []


def test_a_departed_workers_group_verdicts_and_wave_share_go():
    """review50 LOW 5: verdicts found on a departed worker's paces (stealing beside a slower
    worker, consumers by pace, the idle take's combine) go with its paces when no two
    workers left are apart (hooks._apart); a group whose workers left still differ keeps
    them. A wave no longer counts the departed worker among those that took their share
    (its end: every running worker took one)."""
    s, p = _plugin(3)
    p._pace = {"load": {"w0": (0.2, 0.2), "w1": (0.9, 0.8)},  # w1 the slow one
               "read": {"w0": (0.2, 0.2), "w1": (0.2, 0.2), "w2": (0.9, 0.8)},
               "mean": {"w0": (0.2, 0.2), "w2": (0.2, 0.2)}}  # (w1 never ran it)
    for found in (p._slow_groups, p._paced_groups, p._idle_groups):
        found.update(p._pace)
    p._wave = [1, {"w0": 1, "w1": 1}, {"w0", "w1"}, set(), 2]
    _leave(s, p, "w1")
    assert p._slow_groups == p._paced_groups == p._idle_groups == {"read", "mean"}
    assert p._wave[2] == {"w0"}
    assert hooks._apart({"a": (0.2, NAN), "b": (0.4, NAN)})  # (idle_takes: one sample)
    assert not hooks._apart({"a": (0.2, NAN), "b": (0.25, 0.9)})  # (b's own older one)


def test_a_landed_root_is_not_judged_again_by_its_old_result():
    """review50 LOW 8: a root result judged data for want of a larger one
    (policy.judged_again) stayed noted after its data landed, until a larger root result
    came: the same key run again (a later computation) was then judged by its old size. Here
    its new result is a handle a single-input task reads (never judged again), and a larger
    result freed its slot by the old 280 B."""
    b = Books(Policy("tidegate", 1.0))
    b.add_worker("a", 2, math.inf)
    b.leads_on = lambda t: False

    def root(task, nbytes, chained):
        b.on_run(task, "a", True, task, NAN)
        feeds = b.root_holds_data(task, task, nbytes, True, lambda t: chained)
        b.on_finished(task, nbytes, (), False, feeds)

    root("take", 280.0, False)  # beside nothing: data, judged again later
    b.on_run("cut", "a", False, "cut", NAN)
    b.on_finished("cut", 1e3, ["take", "x"], False, True)  # consumed: landed
    assert not b.in_flight("take")
    root("take", 280.0, True)  # run again, now chained: data, not judged again
    assert b.in_flight("take")
    root("chunk", 8e6, False)  # a larger root result: judges again those noted
    assert policy.rejudged_on(2) and b.in_flight("take")
    b.validate()


def test_a_spread_root_parked_on_a_leaving_worker_goes_back_in_line():
    """review50 LOW 9: remove_worker woke the roots parked on the leaving worker before
    the books dropped its book, so _wake asked books.may_take_spread of it: with held
    readers expected there (books.expecting) and its held bytes over its budget, a spread
    root stayed parked on the gone address, where nothing wakes it again."""
    s, p = _plugin(2)
    for addr in s.workers:
        p.books.add_worker(addr, 2, 1e9)
    p.books.workers["w1"].held = 2e9  # (its last refresh: over its budget)
    p.books.expecting = frozenset({"w1"})  # (a reader held for a copy to it)
    ts = _Task("block")
    p._plans["block"] = (ts, SimpleNamespace(spread=True))
    p._parked[ts] = ("w1",)
    p._parked_ts["block"] = ts
    p._waiting_on["w1"] = {ts}
    p._ready = set()  # (the line, as _wake uses it)
    assert not p.books.may_take_spread("w1")
    _leave(s, p, "w1")
    assert ts not in p._parked and "w1" not in p._waiting_on
    assert ts in p._ready


@pytest.mark.parametrize("steps, workers, threads", [(6, 2, 4), (24, 10, 4)])
def test_first_parked_roots_are_parked(monkeypatch, steps, workers, threads):
    """rev50m LOW 1: Placement._first_share noted a root for Admission._first_split
    whenever it withheld it, also where no one parks it (at a new graph's decide_worker,
    in _owed_first, poke with no partner's worker left): the root went in line with the
    note (load 0 of the anomaly at arrival), and, parked later for another reason,
    _first_split would take it for a first-share park. Every noted root is parked."""
    monkeypatch.setattr(policy, "FIRST_SHARE", 2)
    stale: list = []
    poke = hooks.Plugin.poke

    def checking(self, stimulus_id):
        stale.extend(ts.key for ts in self._first_parked if ts not in self._parked)
        return poke(self, stimulus_id)

    monkeypatch.setattr(hooks.Plugin, "poke", checking)
    model = build("anomaly", steps, 190e6, store=True).model()
    (t,) = simulate(model, workers=workers, threads_per_worker=threads, seed=0,
                    policy=["tidegate"], record_memory=False, processes=1)
    assert len(t.trace.tasks) == len(model.dsk)
    assert stale == [], stale


def test_a_confirmed_steal_stamps_the_kept_walks_that_read_the_task():
    """rev50m LOW 5: a steal moves a processing task without a transition; _stolen moved
    its record in the books but did not stamp it (``_moves``) as a transition does, so a
    kept walk that read its worker (_where: processing_on) was taken as current."""
    s, p = _plugin(2)
    for addr in s.workers:
        p.books.add_worker(addr, 2, math.inf)
    p.books.on_run("nap", "w0", False, "nap", NAN)
    s.tasks["nap"] = SimpleNamespace(key="nap", processing_on=s.workers["w1"])
    p._began = lambda key, sid: p.books.on_run(key, "w1", False, "nap", NAN)
    p._moves = {"nap": 0, "other": 0}
    p._moved = 0
    p._stolen("nap")
    assert p.errors == [] and p.books.processing_on("nap") == "w1"
    assert p._moves == {"nap": 1, "other": 0} and p._moved == 1
