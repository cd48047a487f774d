"""policy.BACKLOG_BURST's clause asks the cuts of the refused root's own group
(policy.BACKLOG_BURST_OWN, grp46): a groupby-like computation whose loads were cut up
turned the clause on for a plain computation beside it (review45)."""

from __future__ import annotations

import pytest

pytest.importorskip("distributed")
from tidegate import books as books_module  # noqa: E402
from tidegate import policy  # noqa: E402
from tidegate.sim import simulate  # noqa: E402
from tidegate.sim.model import build_model  # noqa: E402

LOADS = 32
PIECES = 20  # each cut-up load is cut into these (policy.BACKLOG_BURST_CUTS or more)
SIZE = {"cutload": 16e6, "cut": 16e6 / PIECES, "merge": 3e6, "agg": 1e3,
        "plainload": 16e6, "add": 16e6, "part": 1e3, "total": 1e3}
TOOK = {"cutload": 0.03, "cut": 0.005, "merge": 0.01, "agg": 1e-3,
        "plainload": 0.03, "add": 0.01, "part": 1e-3, "total": 1e-3}
PLAIN = ("plainload", "add", "part", "total")


def _f(*args):
    return None


def _two_computations():
    """A groupby-like computation (each load cut into PIECES single-input pieces, merged
    by four loads and gathered per piece) and a plain one (loads added in pairs, then
    summed), the plain one ordered after the other as if submitted once it ran: its
    roots start where the cut-up one's pieces still queue."""
    dsk: dict = {}
    for i in range(LOADS):
        dsk[("cutload-1", i)] = (_f,)
        for j in range(PIECES):
            dsk[("cut-2", i, j)] = (_f, ("cutload-1", i))
    for j in range(PIECES):
        for m in range(LOADS // 4):
            dsk[("merge-3", j, m)] = (_f, [("cut-2", i, j) for i in range(4 * m, 4 * m + 4)])
        dsk[("agg-4", j)] = (_f, [("merge-3", j, m) for m in range(LOADS // 4)])
    for i in range(LOADS):
        dsk[("plainload-5", i)] = (_f,)
    for i in range(LOADS // 2):
        dsk[("add-6", i)] = (_f, ("plainload-5", 2 * i), ("plainload-5", 2 * i + 1))
    for i in range(LOADS // 8):
        dsk[("part-7", i)] = (_f, [("add-6", j) for j in range(4 * i, 4 * i + 4)])
    dsk[("total-8",)] = (_f, [("part-7", i) for i in range(LOADS // 8)])
    keys = [("agg-4", j) for j in range(PIECES)] + [("total-8",)]

    def kind(k):
        return k[0].split("-")[0]

    model = build_model(dsk, keys, sizes=lambda k: SIZE[kind(k)],
                        durations=lambda k: TOOK[kind(k)])
    ranks = model.priorities
    model._priorities = {k: r + (len(ranks) if kind(k) in PLAIN else 0)
                         for k, r in ranks.items()}
    return model


def _burst_decided(monkeypatch, model):
    """Run the two computations on the twin (2 x 2): how often the burst clause alone
    refused a root (policy.backlogged says yes, and no with ``cuts`` 0), by the root's
    group; and the groups whose loads were cut up (the books' own count)."""
    decided: dict = {}
    asking: list = []
    backlogged = books_module.policy_module.backlogged

    def counted(*args):
        answer = backlogged(*args)
        if asking and answer and args[6] and not backlogged(*args[:6], 0):
            decided[asking[-1]] = decided.get(asking[-1], 0) + 1
        return answer

    def asks(name, at):
        method = getattr(books_module.Books, name)

        def asked(self, *args, **kw):
            asking.append(args[at].split("-")[0])
            try:
                return method(self, *args, **kw)
            finally:
                asking.pop()

        monkeypatch.setattr(books_module.Books, name, asked)

    kept = []
    init = books_module.Books.__init__

    def keep(self, *args, **kw):
        init(self, *args, **kw)
        kept.append(self)

    from tidegate import books_admission, books_placement

    for part in (books_admission, books_placement):  # (the books' mixins that ask it)
        monkeypatch.setattr(part, "backlogged", counted)
    monkeypatch.setattr(books_module.Books, "__init__", keep)
    asks("place", 2)  # (task, known, group, ...)
    asks("refuses_further", 1)  # (task, group, ...)
    r = simulate(model, workers=2, threads_per_worker=2, policy="tidegate", seed=0)
    assert len(r.trace.tasks) == len(model.dsk)  # every task ran
    (b,) = kept
    monkeypatch.undo()
    return decided, {g.split("-")[0]: c for g, c in b._cut_groups.items()}


def test_a_cut_up_computation_turns_the_burst_clause_on_for_its_own_roots_only(monkeypatch):
    """Before grp46 (BACKLOG_BURST_OWN = 0: the most cuts over the groups present) the
    cut-up computation's loads turned the burst clause on for the plain one's roots
    (refused by it alone, 34 asks here); asked by the root's own group, never."""
    model = _two_computations()
    runs = {}
    for own in (0, 1):
        monkeypatch.setattr(policy, "BACKLOG_BURST", 1)
        monkeypatch.setattr(policy, "BACKLOG_BURST_OWN", own)
        runs[own] = _burst_decided(monkeypatch, model)
    for decided, cut in runs.values():
        assert cut == {"cutload": PIECES} and PIECES >= policy.BACKLOG_BURST_CUTS
    assert runs[0][0].get("plainload", 0) > 0, runs[0][0]  # grp45's: on for the plain one
    assert runs[1][0].get("plainload", 0) == 0, runs[1][0]
