"""What the plugin remembers to decide faster gives the answers it would find anew.

A root nobody admits is placed again at every task end. Three things make that cheap
(bench/results/cpu23-findings.txt): ``Books.place`` remembers each worker's refusal by the
version of its books; the plugin keeps a queued root's walks of the graph until a task they
looked at moves (a transition, a replica added or dropped); and a root without partners is
refused at once when no free worker could admit it by the count
(``policy.may_fit_count``). Since session 24 (bench/results/cpu24-findings.txt): a root
parked on its further meeting's busy worker is placed again from what its last placement
kept while its walks hold ("further park": the walks and the further meeting are also
found anew), and further meetings are found from a kept plan of the graph's edges
(``policy.further_plan``; "further plan": compared with ``policy.further_meeting``); and
``Books.place`` answers at once for a root refused by its one partner's busy worker
("waits": the per-worker lists and ``policy.place_root`` also asked). Since session 29:
the holders listed in a compute message are kept per holders' set until the plugin's
replica hooks see it change ("holders": listed anew and compared). Since session 30 a root
parked so is not asked again while its worker's refusal inputs are as at its last ask
("stays kept": that worker still refuses it, unless the root's own side moved, which is
counted). With ``Books.audit`` set, every answer taken from those is also found anew and
compared (an assertion inside the plugin, which its guard records in ``plugin.errors``).
These twin runs cover the workloads where they are used most.
"""

from __future__ import annotations

import pytest

pytest.importorskip("distributed")
from tidegate import policy  # noqa: E402
from tidegate.books import Books  # noqa: E402
from tidegate.distributed import hooks, install, placement  # noqa: E402
from tidegate.sim import simulate  # noqa: E402
from tidegate.sim.model import build_model  # noqa: E402
from tidegate.sim.workloads import build  # noqa: E402


@pytest.fixture
def audited(monkeypatch):
    """The plugins installed meanwhile, each checking its remembered answers."""
    monkeypatch.setattr(Books, "audit", True)
    plugins = []
    install = hooks.Plugin.install

    def recording(self, scheduler, apply=None):
        plugins.append(self)
        self.test_scheduler = scheduler
        return install(self, scheduler, apply)

    monkeypatch.setattr(hooks.Plugin, "install", recording)
    return plugins


@pytest.mark.parametrize("name, steps, workers, options, used", [
    # roots parked for a further meeting, woken often
    # (their walks' further meeting found anew where only its tasks moved, "further anew";
    # a refusal repeated within one wake of their worker, "further memo"; a root not
    # asked again while its worker is as at its last ask, "stays kept": still refused)
    # (the a-side's second roots, reserved by their pair's opener, "owed")
    ("rechunk-add", 200, 40, {}, {"refused", "walk", "further", "further park", "waits",
                                  "further plan", "still waits", "still withheld",
                                  "further anew", "further memo", "stays kept",
                                  "stays kept, all", "owed"}),
    # openers of a tree reduction's groups, refused by every free worker (the best of
    # them placed again at each poke: "still withheld", 801 times); the other 3 roots of
    # each group, reserved by its opener, placed by Placement._owed_place ("owed")
    ("anomaly", 1000, 100, {}, {"walk", "free", "further plan", "waits", "still withheld",
                                "owed"}),
    # held bytes and budgets in the books
    # (a root still refused stays parked, "still waits": here "further park" is asked
    # 16 times, 1,378 before session 26)
    ("rechunk-add", 150, 10, {"memory_limit": 0.5}, {"refused", "walk", "further",
                                                     "still waits", "further plan",
                                                     "waits", "stays kept"}),
    # inputs held widely (weighted's grids): their holders listed in compute messages
    # from a copy kept while the set is unchanged (holders.listing, "holders")
    ("weighted", 100, 20, {}, {"holders"}),
])
def test_remembered_answers_are_the_ones_found_anew(audited, name, steps, workers, options,
                                                   used):
    w = build(name, steps, 190e6, store=False)
    model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
    limit = {"worker_memory_limit": 2e9} if options else {}
    r = simulate(model, workers=workers, threads_per_worker=4, policy="tidegate",
                 bandwidth="1GB/s", record_memory=False, **limit, **options)
    assert len(r.trace.tasks) == len(model.dsk)  # every task ran
    (plugin,) = audited
    assert plugin.errors == [], plugin.errors[0][2]
    for method in install.REPLICA_HOOKS:  # dask's own methods back once uninstalled
        assert method not in plugin.test_scheduler.__dict__
    checked = plugin.books.audited
    assert {k for k, n in checked.items() if n >= 20} >= used, checked  # used, and checked


def _run(name, steps, workers):
    w = build(name, steps, 190e6, store=False)
    model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
    r = simulate(model, workers=workers, threads_per_worker=4, policy="tidegate",
                 bandwidth="1GB/s", record_memory=False)
    assert len(r.trace.tasks) == len(model.dsk)


@pytest.mark.parametrize("name, steps, workers", [("anomaly", 400, 40),
                                                  ("rechunk-add", 200, 40)])
def test_owed_roots_placed_from_their_openers_plan(audited, monkeypatch, name, steps,
                                                    workers):
    """policy.OWED_FAST 2: a reserved root's first placement reads its opener's plan
    mirrored (policy.mirrored_inputs), an assumption about the graph; here, as _decide
    finds anew with the root's own plan (the "owed" audit)."""
    monkeypatch.setattr(policy, "OWED_FAST", 2)
    _run(name, steps, workers)
    (plugin,) = audited
    assert plugin.errors == [], plugin.errors[0][2]
    assert plugin.books.audited.get("owed", 0) >= 20, plugin.books.audited


def test_owed_audit_finds_a_wrong_worker(audited, monkeypatch):
    """The "owed" audit fails when the fast path serves another worker than _decide's:
    each reserved root told it was reserved on another running worker, and its walk
    that every input found is there."""
    where, owed_place = placement._where, placement.Placement._owed_place
    target: list = []

    def wrong(self, ts, owed, stimulus_id):
        w, opener = owed
        s = self.scheduler
        other = next((a for a in sorted(self.books.workers)
                      if a != w and s.workers.get(a) in s.running), None)  # fmt: skip
        if other is None:
            return owed_place(self, ts, owed, stimulus_id)
        target[:] = [other]
        try:
            return owed_place(self, ts, (other, opener), stimulus_id)
        finally:
            target.clear()

    def there(ts):
        found = where(ts)
        return target[:1] if found and target else found

    monkeypatch.setattr(placement.Placement, "_owed_place", wrong)
    monkeypatch.setattr(placement, "_where", there)
    _run("anomaly", 200, 20)
    (plugin,) = audited
    assert plugin.errors and "_owed_place" in plugin.errors[0][2], plugin.books.audited
