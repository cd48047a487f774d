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

import sys

import pytest

pytest.importorskip("distributed")
from tidegate import policy  # noqa: E402
from tidegate.books import Books  # noqa: E402
from tidegate.distributed import hooks, install, placement, walks  # noqa: E402
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
    # each group, reserved by its opener, placed by Placement._owed_place ("owed"); a
    # group's last root held by _unknown_pass by its partners' worker's count alone, before
    # what that worker holds is looked at ("held by count"); a refusal kept whatever the
    # body's view of the worker's combines, the view not asked (session 37: "refused, view
    # not asked", ~62,000 times); such a refusal of a root without partners found in one
    # step (session 38: the kept step, "kept step", ~65,000 times); the view of a
    # worker's combines answered from the one kept for it (session 40: Plugin._combines_kept,
    # "view kept", ~6,900 times)
    ("anomaly", 1000, 100, {}, {"walk", "free", "further plan", "waits", "still withheld",
                                "owed", "held by count", "refused, view not asked",
                                "kept step", "view kept"}),
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


@pytest.mark.parametrize("name, steps, workers, mode", [("anomaly", 400, 40, 2),
                                                        ("rechunk-add", 200, 40, 2),
                                                        ("slice-add", 400, 40, 2),
                                                        ("anomaly", 400, 40, 1)])
def test_owed_roots_placed_from_their_openers_plan(audited, monkeypatch, name, steps,
                                                    workers, mode):
    """policy.OWED_FAST 2 (the default): a reserved root's first placement reads its
    opener's plan mirrored (policy.mirrored_inputs) where policy.mirror_holds proves it the
    root's own; 1: the root's own plan. Here, as _decide finds anew with the root's own plan
    (the "owed" audit). slice-add's and rechunk-add's openers lack one root (pairs): no
    mirror is kept for them, their roots read their own plans (Placement._place)."""
    monkeypatch.setattr(policy, "OWED_FAST", mode)
    mirrors = []
    mirrored_inputs = placement.mirrored_inputs

    def counted(plan, *args, **kwargs):
        mirrors.append(plan)
        return mirrored_inputs(plan, *args, **kwargs)

    monkeypatch.setattr(placement, "mirrored_inputs", counted)
    _run(name, steps, workers)
    (plugin,) = audited
    assert plugin.errors == [], plugin.errors[0][2]
    assert plugin.books.audited.get("owed", 0) >= 20, plugin.books.audited
    if mode == 2 and name == "anomaly":  # (its openers lack 3 roots: a mirror each)
        assert len(mirrors) > 20, len(mirrors)
    elif mode == 2 and name == "slice-add":  # (pairs: none)
        assert not mirrors, len(mirrors)


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
    monkeypatch.setattr(walks, "_where", there)
    _run("anomaly", 200, 20)
    (plugin,) = audited
    assert plugin.errors and "_owed_place" in plugin.errors[0][2], plugin.books.audited


def _mirror_case(extra: bool):
    """Loads a0..a3 combined in m (a tree's group of 4), each also read beside a mean M
    read by 20 tasks; with ``extra`` a1 meets a load b in p too (an entry a0's plan lacks)."""
    ins = {f"a{i}": [] for i in range(4)}
    ins["m"] = [f"a{i}" for i in range(4)]
    ins["top"] = ["m", "x"]
    ins["x"] = []
    ins["M"] = ["top"]
    for i in range(4):
        ins[f"s{i}"] = [f"a{i}", "M"]
    for j in range(16):
        ins[f"r{j}"] = ["M"]
    if extra:
        ins["b"] = []
        ins["p"] = ["a1", "b"]
    # (one object per task: the walks test identity)
    ins = {sys.intern(t): [sys.intern(d) for d in ds] for t, ds in ins.items()}
    outs: dict = {t: [] for t in ins}
    for t, ds in ins.items():
        for d in ds:
            outs[d].append(t)
    return outs.__getitem__, ins.__getitem__


@pytest.mark.parametrize("extra", [False, True])
def test_mirror_holds_only_where_the_roots_own_plan_is_the_mirror(extra):
    """policy.mirror_holds: a0 opened m; a1's own plan's entries are a0's mirrored
    (policy.mirrored_inputs) when its other meetings give none, and then its further and
    widest meeting are told; a1 meeting a load b elsewhere (resample's graph had such
    roots: session 31's OWED_FAST 2, which assumed the mirror, reserved other roots there
    than _decide) is no mirror: None."""
    dependents, dependencies = _mirror_case(extra)
    opener = policy.meeting_plan("a0", dependents, dependencies)
    meeting, out = policy.mirrored_inputs(opener, dependents, dependencies)
    assert meeting == "m"
    _, entries, via = out[id(sys.intern("a1"))]
    assert via == "a1"
    proof = policy.mirror_holds("a1", meeting, via, dependents, dependencies)
    own = policy.meeting_plan("a1", dependents, dependencies)
    if extra:
        assert proof is None
        assert sorted(e for m in own.inputs for e in m) != sorted(entries)
    else:
        assert proof == (own.further, max(len(dependencies(m)) for m, _ in own.meetings))
        assert sorted(e for m in own.inputs for e in m) == sorted(entries)
        assert not (own.deep or own.gather or own.spread or own.wide is not None)


def _unlike_tree(seed: int, n: int):
    """Loads under a tree reduction of a random width, some reduced first by a task of
    their own (their siblings not), each read again beside the reduction's result."""
    import random

    rng = random.Random(seed)

    def inc(*a):
        return 0

    dsk, dur, size, level = {}, {}, {}, []
    for i in range(n):
        k = f"load-{i}"
        dsk[k], dur[k], size[k] = (inc,), rng.choice([0.05, 0.1, 0.2]), 10**8
        level.append(k)
        if rng.random() < 0.5:
            c = level[-1] = f"chunk-{i}"
            dsk[c], dur[c], size[c] = (inc, k), 0.01, rng.choice([10**3, 10**8])
    width, lv = rng.choice([2, 3, 4, 5]), 0
    while len(level) > 1:
        nxt = []
        for j in range(0, len(level), width):
            c = f"comb{lv}-{j}"
            dsk[c], dur[c], size[c] = (inc, *level[j:j + width]), 0.01, 10**3
            nxt.append(c)
        level, lv = nxt, lv + 1
    for i in range(n):
        if rng.random() < 0.7:
            k, s = f"sub-{i}", f"store-{i}"
            dsk[k], dur[k], size[k] = (inc, f"load-{i}", level[0]), 0.05, 10**8
            dsk[s], dur[s], size[s] = (inc, k), 0.02, 0
    used = {d for v in dsk.values() for d in v[1:]}
    return dsk, [k for k in dsk if k not in used], dur, size


@pytest.mark.parametrize("seed, workers, threads", [(13, 4, 1), (33, 4, 2)])
def test_owed_roots_of_unlike_siblings_as_decide_places_them(audited, monkeypatch, seed,
                                                             workers, threads):
    """policy.OWED_FAST 2 on trees whose siblings differ (one reduced by a task of its own,
    its opener not): the fast path asks the root's own reduction (``_splits``), not its
    opener's as session 31's form did (which differed from _decide: 5-8 audit failures
    here), and the "owed" audit passes."""
    monkeypatch.setattr(policy, "OWED_FAST", 2)
    dsk, keys, durations, sizes = _unlike_tree(seed, 24 + 8 * (seed % 5))
    simulate(dsk, keys=keys, durations=durations, sizes=sizes, workers=workers,
             threads_per_worker=threads, policy="tidegate", record_memory=False)
    (plugin,) = audited
    assert plugin.errors == [], plugin.errors[0][2]
    assert plugin.books.audited.get("owed", 0) >= 10, plugin.books.audited


@pytest.mark.parametrize("name, steps, workers, fewer", [("anomaly", 400, 40, 1.5),
                                                         ("rechunk-add", 200, 40, 1)])
def test_kept_step_leaves_the_log_and_every_placement_as_they_were(monkeypatch, name, steps,
                                                                  workers, fewer):
    """Books.place's kept refusals, outside the audit too (admits' test against the memo,
    and the kept step: a kept refusal of a root without partners found without the admits
    closure, session 38): the books' log (every "withheld" entry, in order: what story()
    reads) and the trace (every task's worker and times, every transfer) are those of a run
    whose Books.place forgets every refusal before each ask, each answer found anew by
    _admits (session 38 compared the kept step's switch, books.KEPT_STEP, 0 and 1 so). The
    anomaly asks _admits 1.7 times fewer with them, 1,117 -> 656 (3.8 times before session
    50b's Placement._may_fit: most kept refusals were of roots refused by the combine view,
    now withheld without an ask; rechunk-add: its refusals are rarely asked again)."""
    from dataclasses import astuple

    out = []
    install_, place, admits = hooks.Plugin.install, Books.place, Books._admits
    for forget in (True, False):
        plugins: list = []
        asked = [0]

        def recording(self, scheduler, apply=None, plugins=plugins):
            plugins.append(self)
            return install_(self, scheduler, apply)

        def forgetting(self, *args, **kwargs):
            self._refusals.clear()
            return place(self, *args, **kwargs)

        def counted(self, *args, asked=asked, **kwargs):
            asked[0] += 1
            return admits(self, *args, **kwargs)

        monkeypatch.setattr(hooks.Plugin, "install", recording)
        monkeypatch.setattr(Books, "place", forgetting if forget else place)
        monkeypatch.setattr(Books, "_admits", counted)
        w = build(name, steps, 190e6, store=False)
        model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
        r = simulate(model, workers=workers, threads_per_worker=4, policy="tidegate",
                     bandwidth="1GB/s", record_memory=False)
        (plugin,) = plugins
        assert plugin.errors == []
        out.append(([tuple(map(str, e)) for e in plugin.books.log],
                    [astuple(t) for t in r.trace.tasks],
                    [astuple(t) for t in r.trace.transfers], asked[0]))
    assert sum(e[1] == "withheld" for e in out[0][0]) > 1000
    assert out[0][:3] == out[1][:3]
    assert out[1][3] * fewer <= out[0][3], (out[1][3], out[0][3])  # (the kept ones used)


@pytest.mark.parametrize("steps, workers", [(16, 4), (16, 2)])
def test_a_final_gathers_further_tasks_are_audited_as_none(audited, steps, workers):
    """A store's finalize is no further meeting (policy.FURTHER_GATHER): the audit of a
    root's further tasks finds none anew too (review46: it listed the other stores, and the
    failed audit fell back to dask's placement 6-11 times)."""
    w = build("slice-add", steps, 190e6, store=True)
    r = simulate(w.model(), workers=workers, threads_per_worker=2, seed=0, policy="tidegate",
                 record_memory=False)
    assert len(r.trace.tasks) == len(w.model().dsk)
    (plugin,) = audited
    assert plugin.errors == [], plugin.errors[0][2]
    assert plugin.books.audited.get("further tasks", 0) > 0, plugin.books.audited
