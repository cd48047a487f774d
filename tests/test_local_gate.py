"""The fewer-at-once gate's count (core.gate_refusals, the run's stats) and the limit the
thread runtime names for running every thread (issue 10). Deterministic: no RSS read."""

import math

from tidegate.core import Scheduler
from tidegate.local import Hooks
from tidegate.local_steering import _limit_for_threads, _threads_that_fit
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


def _light_then_heavy(after: float) -> Scheduler:
    """A light root (needs nothing, returns nothing) and a heavy one (needs 60, returns 30),
    then their sum; a ceiling of 100 on 2 threads, one fitted to memory; ``after``: the
    room kept for the task after them."""
    g = make_graph({"a": [], "r": [], "s": ["a", "r"]}, ["s"])
    g.set_groups([k[0] for k in g.keys])
    core = Scheduler(g, [(2, 1e9)], Policy("priority"), validate=True)
    a, r = core._group[g.keys.index("a")], core._group[g.keys.index("r")]
    core.need[a], core.out[a] = 0.0, 0.0
    core.need[r], core.out[r] = 60.0, 30.0
    core.ceiling[0], core.fit[0], core.after = 100.0, 1, after
    return core


def test_a_thread_past_those_fitted_leaves_the_next_task_its_room_beside_a_lighter_one():
    """Beside a task that needs less than it (and so ends first), a task on a thread past
    those fitted starts only where the task after them would fit beside it now (60 + 60 >
    100): else the fitted thread, free again, waits for it. (vorticity at 170 MB: a chunk's
    read started beside the slices before a store held the store back for the whole read,
    and the next step's two reads, which fit together, ran one at a time.) With room for
    what comes after (60 + 30 <= 100), or beside a task as needy (_two_roots), it starts."""
    def started(core):
        return sorted(core.graph.keys[a.task] for a in core.start() if type(a).__name__ == "Run")

    core = _light_then_heavy(after=60.0)
    assert started(core) == ["a"] and core.extra_waits > 0
    core = _light_then_heavy(after=30.0)
    assert started(core) == ["a", "r"]


class _Reading:
    """A governor's usable limit and its readings, in turn (no RSS read)."""

    def __init__(self, usable: float, readings: list):
        self.usable, self._readings, self.latest = usable, readings, readings[0]

    def _read(self):
        self.latest = self._readings.pop(0)


def test_a_task_held_back_at_the_gate_starts_once_a_second_reading_shows_room():
    """The ceiling rests on the reading at the ask; one taken while another thread was
    still freeing memory (zarr lets a store's encoded chunk go after the store returned)
    leaves it short. With a thread idle at the gate, the runtime reads again
    (local_steering._recheck): the ceiling rises to what that reading leaves (held + usable -
    reading + the running tasks' needs), never past the ask's own cap, and the task
    waiting starts; a reading no lower changes nothing."""
    from tidegate.local_steering import _recheck

    def step(reading: float, cap: float = 100.0):
        core = _two_roots(after=0.0, fit=1)
        core.ceiling[0] = 70.0  # the ask's reading left 70: 40 + 40 does not fit
        first = [a for a in core.start() if type(a).__name__ == "Run"]
        running = {a.task: core._group[a.task] for a in first}
        dispatched = []
        _recheck(core, _Reading(100.0, [reading]), running, dispatched.extend, cap)
        return core, len(first), sum(type(a).__name__ == "Run" for a in dispatched)

    core, first, then = step(reading=10.0)  # 0 + 100 - 10 + 40 = 130, capped at 100
    assert (first, then) == (1, 1) and core.ceiling[0] == 100.0
    core, first, then = step(reading=10.0, cap=75.0)  # the cap: 40 + 40 > 75
    assert (first, then) == (1, 0) and core.ceiling[0] == 75.0
    core, first, then = step(reading=75.0)  # 0 + 100 - 75 + 40 = 65 < 70: as it was
    assert (first, then) == (1, 0) and core.ceiling[0] == 70.0


def test_a_recheck_that_raises_the_ceiling_clears_what_shared_buffers_took_off_it():
    """A result viewing a held result's buffer leaves memory and frees nothing: the core
    takes its bytes off the ceiling (core._taken) and gives them back when the buffer's
    last holder goes. A ceiling set from a reading already saw that buffer, so the ask
    clears _taken; _recheck sets one from a reading too and must clear it as well, else
    the buffer's release gives those bytes back on top of the reading's ceiling (review22:
    room 130 MB after everything was released under a 100 MB limit)."""
    from tidegate.core import Finished
    from tidegate.local_steering import _recheck

    mb = 1e6
    # a: a 30 MB root; v: a view of a's buffer; o1 reads v; o2 reads a after o1
    g = make_graph({"a": [], "v": ["a"], "o1": ["v"], "o2": ["a", "o1"]}, ["o2"])
    idx = {k: i for i, k in enumerate(g.keys)}
    size = {"a": 30 * mb, "v": 30 * mb, "o1": 8, "o2": 8}

    def room(recheck: bool) -> tuple[float, float]:
        core = Scheduler(g, [(1, 1000 * mb)], Policy("tidegate", 1.1))
        assert [g.keys[a.task] for a in core.start() if type(a).__name__ == "Run"] == ["a"]

        def finish(k):
            if k in ("a", "v"):
                core.buffer[idx[k]] = 12345  # one buffer, as the body names it
            core.handle_many([Finished(idx[k], size[k])])

        finish("a")
        core.ceiling[0] = 100 * mb  # the ask: a ceiling from a reading
        core._taken.clear()
        finish("v")
        finish("o1")  # v leaves memory, a still holds the buffer: 30 MB taken
        assert core._taken == {12345: 30 * mb}
        if recheck:  # RSS shows a's 30 MB: held 30 + usable 100 - 30 -> 100
            _recheck(core, _Reading(100 * mb, [30 * mb]), {}, lambda actions: None, math.inf)
            assert core.ceiling[0] == 100 * mb + 8  # o1: 8 held
        finish("o2")  # a released: its 30 MB really freed
        return core.ceiling[0], sum(w.held for w in core.workers)

    assert room(recheck=False) == (100 * mb, 8)
    assert room(recheck=True) == (100 * mb + 8, 8)  # not 130 MB: taken counted twice


def test_the_outlasting_rule_holds_only_below_the_working_set():
    """_fits_after's rule for a task that outlasts the running ones (the read held back
    beside the light task above) applies only where the runtime finds the limit below the
    working set by measured needs (core.below, local_steering._below_working_set); above it (200 MB
    vorticity once its needs are trusted) the thread past those fitted starts as before."""
    def started(core):
        return sorted(core.graph.keys[a.task] for a in core.start() if type(a).__name__ == "Run")

    core = _light_then_heavy(after=60.0)
    core.below = False
    assert started(core) == ["a", "r"]


class _Needs:
    """A governor's usable limit, chunk and which groups' needs it trusts (no RSS read)."""

    def __init__(self, usable: float, trusted=()):
        self.usable, self.chunk, self._trusted = usable, 32e6, set(trusted)

    def trusted(self, group) -> bool:
        return group in self._trusted


def test_below_the_working_set_by_the_chunk_rule_or_needs_measured_not_guesses():
    """Vorticity's store (72 MB past its inputs) and read (68) on 2 threads of 32 MB chunks:
    170 MB (152 usable) holds no fifth chunk, one thread by the chunk rule, yet two stores'
    needs (144): below, once the neediest groups are trusted; 200 MB (180 usable) holds
    both measured (72 + 68): not below; before they are trusted their guesses come with
    their inputs (96 + 32 each: one thread) and the rule and the recheck wait for the
    measurements. 140 MB (125 usable) holds no two of the neediest: nothing pairs, and
    the two changes stay out (its runs were slower with them in 24 of 30 pairs)."""
    from tidegate.local_steering import _below_working_set

    measured = [(72e6, 25), (68e6, 50), (1e6, 600)]  # store, read, a slice
    guessed = [(128e6, 25), (128e6, 50), (1e6, 600)]
    groups = ["store", "read", "slice"]
    assert _below_working_set(_Needs(152.4e6, groups), 2, 32e6, groups, measured)
    assert not _below_working_set(_Needs(180e6, groups), 2, 32e6, groups, measured)
    assert not _below_working_set(_Needs(180e6, ["slice"]), 2, 32e6, groups, guessed)
    assert not _below_working_set(_Needs(152.4e6, ["slice"]), 2, 32e6, groups, guessed)
    # a light group untrusted changes nothing; one thread asked for: never below
    assert _below_working_set(_Needs(152.4e6, groups[:2]), 2, 32e6, groups, measured)
    assert not _below_working_set(_Needs(152.4e6, groups), 1, 32e6, groups, measured)
    assert not _below_working_set(_Needs(124.8e6, groups), 2, 32e6, groups, measured)

