"""The fewer-at-once gate's count (core.gate_refusals, the run's stats) and the limit the
thread runtime names for running every thread (issue 10). Deterministic: no RSS read."""

import math

from tidegate.core import Scheduler
from tidegate.local import Hooks, _limit_for_threads, _threads_that_fit
from tidegate.measure import Governor
from tidegate.policy import Policy
from tidegate.testing import drive, make_graph


def _graph():
    deps = {f"r{i}": [] for i in range(4)}
    deps.update({f"f{i}": [f"r{i}"] for i in range(4)})  # f_i needs 50 while it runs
    deps["s"] = [f"f{i}" for i in range(4)]
    g = make_graph(deps, ["s"])
    g.set_groups([k[0] for k in g.keys])
    return g


def _run(ceiling: float, seed: int, needy: str = "f") -> tuple[Scheduler, int]:
    """Drive the graph on 2 threads; count the times a ready task was left waiting while a
    thread was free and another task ran (what the gate's count must match). ``needy``:
    the tasks that need 50 while they run, the steps ("f") or the roots ("r", withheld as
    tidegate withholds them)."""
    g = _graph()
    core = Scheduler(g, [(2, 1e9)], Policy("priority" if needy == "f" else "tidegate"),
                     validate=True)  # fmt: skip
    core.need[core._group[g.keys.index(f"{needy}0")]] = 50.0
    core.ceiling[0] = ceiling
    sizes = {i: 30 if g.keys[i][0] == "r" else 10 for i in range(len(g))}
    waited = [0]
    handle = core.handle

    def watched(event):
        before = core.gate_refusals
        actions = handle(event)
        w = core.workers[0]
        if 0 < w.processing < w.threads and core.n_ready:  # a thread idle, work ready
            waited[0] += 1
            assert core.gate_refusals > before  # only the gate leaves it so here
        return actions

    core.handle = watched
    drive(core, seed=seed, size=sizes.__getitem__)
    assert core.done
    return core, waited[0]


def test_the_gate_counts_each_task_it_holds_back():
    held_back = 0
    for seed in range(5):
        core, waited = _run(100.0, seed)  # 30-byte results held, 50 to run: two don't fit
        assert core.gate_refusals >= waited
        held_back += core.gate_refusals
        if core.gate_refusals:
            assert core.gate_short > 0  # by how much the last one did not fit
    assert held_back > 0
    for seed in range(5):
        core, waited = _run(math.inf, seed)  # no ceiling: the gate never acts
        assert core.gate_refusals == 0 and waited == 0


def test_a_root_that_does_not_fit_beside_a_running_one_counts_as_held_back():
    """Roots that each need 50 while they run, in a ceiling of 80: the second waits for the
    first (core._root_fits), a thread idle as the gate leaves it. The fewer-at-once notice
    counts it: uncounted, a run of 108 MB loaders at 250 MB, one at a time for most of it,
    was said to fit two threads in 1 run of 7 (test_rss_threads)."""
    held_back = 0
    for seed in range(5):
        core, waited = _run(80.0, seed, needy="r")
        assert core.gate_refusals >= waited
        held_back += waited
        if core.gate_refusals:
            assert core.gate_short > 0
    assert held_back > 0
    for seed in range(5):
        core, waited = _run(math.inf, seed, needy="r")
        assert core.gate_refusals == 0 and waited == 0


def _rules_keep(limit: float, n: int, per_task: float, chunk: float) -> int:
    """How many of n threads _threads_that_fit keeps at ``limit`` when each running task
    needs ``per_task`` (the room the budget keeps for it) and held results sit at the floor."""
    gov = Governor(limit, baseline=0, floor=max(chunk, 0.25 * limit), chunk=chunk)
    gov.overhead = n * per_task
    gov.room = gov.usable - gov.overhead
    return _threads_that_fit(gov, n, n, 0, chunk)


def test_the_limit_named_for_all_threads_is_where_the_rules_keep_them():
    """Vorticity per file at 300 MB: a step needs ~130 MB past its inputs, so one thread;
    the limit named for two must be where the same rules keep two, and no lower than what
    chunk metadata asks for them (four footprints of a 32 MB chunk each)."""
    chunk, per_task = 32e6, 130e6
    assert _rules_keep(300e6, 2, per_task, chunk) == 1
    hooks = Hooks(cap=300e6, floor=75e6, chunk=chunk)
    gov = Governor(300e6, baseline=0, floor=75e6, chunk=chunk)
    named = _limit_for_threads(gov, 2, per_task, chunk, hooks)
    assert _rules_keep(named, 2, per_task, chunk) == 2
    assert _rules_keep(0.95 * named, 2, per_task, chunk) == 1  # and not far below it
    assert 380e6 < named < 420e6
    # Small needs: the chunk metadata bound (2 x 4 x 32 MB in the usable share) decides.
    small = _limit_for_threads(gov, 2, 1e6, chunk, hooks)
    assert small >= 2 * 4 * chunk / 0.92
    assert _rules_keep(small, 2, 1e6, chunk) == 2


def _two_roots(after: float, fit: float) -> Scheduler:
    """Two roots that each need 40 while they run and return 30, then their sum; a ceiling
    of 100 on 2 threads, of which ``fit`` fitted to memory; ``after``: the room kept for
    the task after them."""
    g = make_graph({"r0": [], "r1": [], "s": ["r0", "r1"]}, ["s"])
    g.set_groups([k[0] for k in g.keys])
    core = Scheduler(g, [(2, 1e9)], Policy("priority"), validate=True)
    r = core._group[g.keys.index("r0")]
    core.need[r], core.out[r] = 40.0, 30.0
    core.ceiling[0], core.fit[0], core.after = 100.0, fit, after
    return core


def test_a_thread_past_those_fitted_starts_a_task_only_where_the_next_one_fits_after():
    """Both roots fit at once (40 + 40 <= 100): the second thread, not fitted to memory,
    starts the second root only where their results and the room for the task after them
    stay within the ceiling (30 + 30 + 40 <= 100, not 30 + 30 + 50): else it would be
    spilled to start that one. Such waits are no gate refusals (the thread was not fitted)."""
    runs = lambda core: sum(type(a).__name__ == "Run" for a in core.start())  # noqa: E731
    core = _two_roots(after=40.0, fit=1)
    assert runs(core) == 2 and core.extra_waits == 0
    core = _two_roots(after=50.0, fit=1)
    assert runs(core) == 1 and core.extra_waits > 0 and core.gate_refusals == 0
    core = _two_roots(after=50.0, fit=2)  # both threads fitted: only the gate decides
    assert runs(core) == 2
    core = _two_roots(after=0.0, fit=1)
    core.ceiling[0] = 70.0  # 40 + 40 does not fit: waits whatever comes after
    assert runs(core) == 1
