"""The sans-I/O core driven by hand: events in, actions out, invariants after every event."""

import math
import random

import pytest
from hypothesis import Phase, example, given, settings
from hypothesis import strategies as st

from tidegate.core import (
    MEMORY, PROCESSING, RELEASED, SPILLED, Failed, Finished, InvalidTransition, Load, Run,
    Scheduler,
)  # fmt: skip
from tidegate import testing
from tidegate.policy import Policy
from tidegate.testing import drive

import numpy as np


def make_graph(deps, outputs):
    return testing.make_graph(deps, outputs)


def draw_deps(draw, n, fan_in):
    """``{task: its dependencies}`` of a random DAG of ``n`` tasks, each reading up to
    ``fan_in`` distinct earlier ones (so 0..n-1 is a topological order)."""
    deps = {}
    for i in range(n):
        k = draw(st.integers(0, min(i, fan_in)))
        deps[i] = sorted(set(draw(st.lists(st.integers(0, i - 1), min_size=k, max_size=k)))) \
            if i else []
    return deps


@st.composite
def dags(draw):
    n = draw(st.integers(1, 40))
    deps = draw_deps(draw, n, 4)
    outputs = draw(st.lists(st.sampled_from(range(n)), min_size=1, max_size=3, unique=True))
    return deps, outputs


@settings(max_examples=150, deadline=None, phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(
    dags(),
    st.integers(1, 3),
    st.integers(1, 4),
    st.sampled_from([0.5, 1.0, 1.1, 2.0]),
    st.sampled_from([math.inf, 1e3, 250.0, 1.0]),
    st.sampled_from(["tidegate", "priority"]),
    st.integers(0, 10**6),
)
def test_random_graphs_complete_with_invariants(dag, workers, threads, sat, budget, policy, seed):
    deps, outputs = dag
    g = make_graph(deps, outputs)
    core = Scheduler(g, [(threads, budget)] * workers, Policy(policy, sat), validate=True)
    rng = random.Random(seed)
    sizes = [rng.choice([0, 10, 100, 1000]) for _ in range(len(g))]

    def within_budget(core):
        # Over budget only by the inputs of running tasks, which cannot be spilled.
        running = [i for i in range(len(g)) if core.state[i] == PROCESSING]
        for w, worker in enumerate(core.workers):
            pinned = {d for i in running for d in g.dependencies(i) if core.where[d] == w}
            assert worker.held <= worker.budget + sum(sizes[d] for d in pinned)

    runs, releases = drive(core, seed, size=sizes.__getitem__, on_event=within_budget)
    assert core.done
    assert sorted(runs) == list(range(len(g)))  # every task ran exactly once
    outs = set(g.outputs.tolist())
    assert set(releases) == set(range(len(g))) - outs  # everything else released once
    assert len(releases) == len(set(releases))
    assert all(core.state[i] in (MEMORY, SPILLED) for i in outs)
    assert all(core.state[i] == RELEASED for i in releases)
    assert sum(w.held + w.spilled for w in core.workers) == sum(sizes[i] for i in outs)


@settings(max_examples=150, deadline=None, phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(dags(), st.integers(1, 3), st.sampled_from([1e3, 250.0, 60.0]), st.integers(1, 4),
       st.integers(0, 10**6))  # fmt: skip
def test_consumers_brought_forward_keep_every_invariant(dag, threads, budget, layers, seed):
    """Keys named as dask names them, (layer, index): a pending task is sized by its
    layer's results, and below the budget a held result's consumers are brought forward
    (_pull_consumers): validate_state holds after every event, every task runs once and
    all but the outputs are released once."""
    deps, outputs = dag

    def key(i):
        return (f"layer{i % layers}", i)

    g = make_graph({key(i): [key(d) for d in ds] for i, ds in deps.items()},
                   [key(i) for i in outputs])  # fmt: skip
    core = Scheduler(g, [(threads, budget)], Policy("tidegate", 1.1), validate=True)
    rng = random.Random(seed)
    sizes = [rng.choice([1, 10, 100, 400]) for _ in range(len(g))]
    runs, releases = drive(core, seed, size=sizes.__getitem__)
    assert core.done
    assert sorted(runs) == list(range(len(g)))
    assert sorted(releases) == sorted(set(range(len(g))) - set(g.outputs.tolist()))


def _resample_graph(chunks=12, days=12, week=7):
    """``(x.resample(time="7D").mean() - x.mean("time")).std("time")`` in small, in dask's
    shape and dask.order's order: a chunk (120 bytes) feeds the global mean's tree and its
    weeks; a week inside one chunk is one task, a week across two is a piece of each chunk
    (a layer per week, as dask names them) and their stack; each week's moment needs the
    global mean. dask.order puts every week after every chunk. Sizes for ``drive``."""
    from dask.order import order

    deps, size, group = {}, {}, {}

    def add(k, ds, n, name):
        deps[k], size[k], group[k] = ds, n, name

    def tree(prev, name, n):
        level = 0
        while len(prev) > 1:
            level += 1
            for j in range(0, len(prev), 4):
                add((f"{name}{level}", j), prev[j : j + 4], n, name)
            prev = [(f"{name}{level}", j) for j in range(0, len(prev), 4)]
        return prev[0]

    for c in range(chunks):
        add(("random", c), [], 120, "random")
        add(("mean_chunk", c), [("random", c)], 20, "mean_chunk")
    add(("mean_agg", 0), [tree([("mean_chunk", c) for c in range(chunks)], "mean_combine", 20)],
        10, "mean_agg")  # fmt: skip
    moments = []
    for w in range(math.ceil(chunks * days / week)):
        cs = sorted({d // days for d in range(w * week, min((w + 1) * week, chunks * days))})
        if len(cs) == 1:
            add(("getitem-week", w), [("random", cs[0])], 10, "getitem")
        else:
            for c in cs:
                add((f"getitem-mean_chunk-{w}", c), [("random", c)], 20, "getitem")
            add(("getitem-week", w), [(f"getitem-mean_chunk-{w}", c) for c in cs], 10, "stack")
        add(("moment_chunk", w), [("mean_agg", 0), ("getitem-week", w)], 30, "moment_chunk")
        moments.append(("moment_chunk", w))
    out = tree(moments, "moment_combine", 30)
    g = testing.make_graph(deps, [out])
    g.set_groups([group[k] for k in g.keys])
    ranks = order({k: (len, *ds) for k, ds in deps.items()})
    g.priority = np.array([ranks[k] for k in g.keys])
    return g, [size[k] for k in g.keys]


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_resamples_chunks_are_freed_by_their_weeks(threads, seed):
    """Under a budget that holds everything (the default limit), a resample's chunk is freed
    by its weeks and its share of the global mean right after it is read, not held until
    dask.order reaches its weeks, after every chunk: no consumer cone ends above the std
    (core._near_cone). On the base 5-11 chunks were held at once (830-1550 bytes held),
    here 4 at most: the threads' two, and the two whose weeks wait for their next chunk."""
    g, sizes = _resample_graph()
    core = Scheduler(g, [(threads, 1e9)], Policy("tidegate", 1.1), validate=True)
    drive(core, seed=seed, size=sizes.__getitem__)
    assert core.done
    assert core.peak_roots_held <= 4
    assert core.workers[0].peak_held <= 700


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_resamples_chunks_are_freed_by_their_weeks_without_a_budget(threads, seed):
    """The same without a budget (memory_limit="none"): consumers are pulled forward there
    too (one28). Pulled only below a budget, base28 held 11 of the 12 chunks here, as
    strict priority does; tidegate.get on xarray's resample("7D").mean().to_zarr held 25
    chunks (383 MB) against 6-8 with any budget (bench/results/one28-findings.txt)."""
    g, sizes = _resample_graph()
    core = Scheduler(g, [(threads, math.inf)], Policy("tidegate", 1.1), validate=True)
    drive(core, seed=seed, size=sizes.__getitem__)
    assert core.done
    assert core.peak_roots_held <= 4
    assert core.workers[0].peak_held <= 700


def pairs(n):
    deps = {("load", i): [] for i in range(n)}
    deps.update({("out", k): [("load", 2 * k), ("load", 2 * k + 1)] for k in range(n // 2)})
    return make_graph(deps, [("out", k) for k in range(n // 2)])


@pytest.mark.parametrize("threads,sat", [(1, 1.0), (2, 1.1), (4, 1.1), (8, 1.5)])
def test_roots_in_flight_within_cap(threads, sat):
    """Roots processing never exceed the cap. Root outputs held: a root admitted past the
    in-flight count completes a pair whose other root was admitted within it, so processing
    plus held roots stay within twice the cap."""
    g = pairs(200)
    core = Scheduler(g, [(threads, math.inf)], Policy("tidegate", sat), validate=True)
    cap = math.ceil(sat * threads)

    seen = []

    def check(core):
        w = core.workers[0]
        assert w.roots_processing <= cap
        assert w.roots_processing + core.roots_held <= 2 * cap
        seen.append(w.roots_processing)

    drive(core, on_event=check)
    assert core.done and max(seen) == min(cap, threads)  # roots were withheld, not starved


def test_priority_policy_does_not_withhold():
    g = pairs(40)
    core = Scheduler(g, [(4, math.inf)], Policy("priority"))
    runs = [a.task for a in core.start()]
    assert len(runs) == 4  # one per thread, best priority first
    assert sorted(g.priority[runs].tolist()) == g.priority[runs].tolist()


def test_memory_gate_holds_roots_but_progress_is_guaranteed():
    """Every load is 1000 bytes, budget 1500, saturation high enough that only memory
    gates. Sizes unknown at first: the first wave (one per thread) runs at an estimate of 0.
    Once that wave is done, a root is admitted only if held bytes plus its 1000-byte
    estimate fit 1500, so a busy worker never runs two; an idle worker always runs one."""
    g = pairs(20)
    core = Scheduler(g, [(4, 1500.0)], Policy("tidegate", 10.0), validate=True)
    started = core.start()
    first = {a.task for a in started}
    assert len(first) == 4

    def check(core):
        w = core.workers[0]
        if all(core.state[i] != PROCESSING for i in first):
            assert w.roots_processing <= 1, w.roots_processing

    runs, _ = drive(core, size=lambda i: 1000, on_event=check, started=started)
    assert len(runs) == len(g) and core.done


def test_failure_stops_new_work():
    g = pairs(10)
    core = Scheduler(g, [(2, math.inf)], validate=True)
    started = core.start()
    assert len(started) == 2
    assert core.handle(Failed(started[0].task)) == []
    assert core.handle(Finished(started[1].task, 1)) == []
    assert core.failed == started[0].task and core.n_running == 0 and not core.done


def test_cancel_stops_new_work():
    g = pairs(10)
    core = Scheduler(g, [(2, math.inf)], validate=True)
    started = core.start()
    core.cancel()
    actions = core.handle(Finished(started[0].task, 1))
    assert not any(type(a) is Run for a in actions) and core.n_running == 1


def test_bad_events_and_workers_are_refused():
    g = pairs(4)
    core = Scheduler(g, [(1, math.inf)])
    core.start()
    out = g.keys.index(("out", 0))
    with pytest.raises(InvalidTransition, match="waiting -> memory") as info:
        core.handle(Finished(out, 1))
    assert info.value.key == ("out", 0) and info.value.start == "waiting"
    assert core.broken is None  # refused before any change: the core goes on
    load = g.keys.index(("load", 0))
    core.handle(Finished(load, 1))
    with pytest.raises(InvalidTransition, match="memory -> memory") as info:
        core.handle(Finished(load, 1))  # a duplicate completion
    assert ("processing", "memory") in [e[1:] for e in info.value.story]
    with pytest.raises(ValueError, match="thread"):
        Scheduler(g, [(0, math.inf)])
    with pytest.raises(ValueError, match="budget"):
        Scheduler(g, [(1, 0)])
    with pytest.raises(ValueError, match="saturation"):
        Policy("tidegate", 0)
    with pytest.raises(ValueError, match="policy"):
        Policy("eager")


def test_a_core_that_broke_refuses_further_input():
    """An unexpected exception may leave half-changed state: later calls re-raise it
    instead of acting on it (an InvalidTransition is refused before any change)."""
    g = pairs(4)
    core = Scheduler(g, [(1, math.inf)])
    core.start()
    with pytest.raises(IndexError):
        core.handle(Finished(len(g) + 5, 1))
    with pytest.raises(RuntimeError, match="broke earlier") as info:
        core.handle_many([])
    assert isinstance(info.value.__cause__, IndexError)


def test_story_names_every_move_and_decision():
    g = pairs(8)
    core = Scheduler(g, [(2, math.inf)], Policy("tidegate", 0.5), validate=True)  # cap 1
    runs, _ = drive(core)
    moves = [(a, b) for a, b in [e[1:] for e in core.story(("out", 0)) if len(e) == 3]]
    assert moves == [("waiting", "ready"), ("ready", "processing"), ("processing", "memory")]
    decisions = [e for e in core.story(("load", 2)) if len(e) == 4]
    assert any(e[1] == "withheld" for e in decisions)  # it waited for a slot at least once


# -- roots dropped and run again instead of spilled ---------------------------------------
def _anomaly_graph(n):
    """Roots 0..n-1, each read twice: by a partial (n+i), then, past the total (2n) of all
    partials, by a departure (2n+1+i): the roots must leave memory in between."""
    deps = {i: [] for i in range(n)}
    deps.update({n + i: [i] for i in range(n)})
    deps[2 * n] = [n + i for i in range(n)]
    deps.update({2 * n + 1 + i: [i, 2 * n] for i in range(n)})
    return make_graph(deps, [2 * n + 1 + i for i in range(n)])


def _rerun_core(n, threads, budget, limited=False):
    """The anomaly graph's core on one worker, its roots cheap to run again (``limited``:
    a limit of one at a time on them), and sizes for ``drive``: tasks 0..n-1 100 bytes,
    the rest 1 byte."""
    g = _anomaly_graph(n)
    if limited:
        g.set_limits({i: ("io",) for i in range(n)}, {"io": 1})
    core = Scheduler(g, [(threads, budget)], Policy("tidegate", 1.0), validate=True)
    core.rerun = [True] * len(g.group_names)
    return g, core, lambda i: 100 if i < n else 1


def test_cheap_roots_are_dropped_and_run_again_instead_of_spilled():
    n = 6
    g, core, size = _rerun_core(n, 1, 250.0)
    runs, releases = drive(core, size=size)
    assert core.done
    roots = [g.keys.index(i) for i in range(n)]
    again = [i for i in roots if runs.count(i) == 2]
    assert again and core.n_recomputed == len(again)  # some roots ran twice, none more
    assert all(runs.count(i) == 1 for i in range(len(g)) if i not in roots)
    assert core.bytes_spilled == 0 and core.bytes_dropped == 100 * len(again)
    for i in again:  # dropped (a Release) between its two runs, not before its partial ran
        first, second = [k for k, t in enumerate(runs) if t == i]
        partial = runs.index(g.keys.index(n + g.keys[i]))
        assert first < partial < second
    # Without rerun the same schedule spills the roots instead.
    core = Scheduler(g, [(1, 250.0)], Policy("tidegate", 1.0), validate=True)
    runs, _ = drive(core, size=size)
    assert core.bytes_spilled > 0 and core.bytes_dropped == 0 and len(runs) == len(g)


def test_a_root_run_again_runs_just_before_the_task_waiting_for_it():
    """Dropped roots woken at once (past the total, every departure waits only for its
    own root) run one at a time, each just before its departure: by their own priority,
    which came before the partials', they would all run ahead of every departure, and the
    departures' room would be made by spilling the roots read ahead (the zarr anomaly at
    200 MB wrote 192-224 MB; with this, 0-32)."""
    n = 6
    g, core, size = _rerun_core(n, 1, 350.0)
    runs, _ = drive(core, size=size)
    assert core.done and core.bytes_spilled == 0
    keys = [g.keys[i] for i in runs]
    total = keys.index(2 * n)
    again = [k for k in keys[total:] if k < n]
    assert len(again) >= 2, keys  # the premise: several roots woken at once
    for k in again:  # the root's second run, then at once its departure
        second = total + keys[total:].index(k)
        assert keys[second + 1] == 2 * n + 1 + k, keys


def test_a_root_run_again_keeps_its_place_when_a_limit_holds_it():
    """A dropped root withheld by a full concurrency limit (a read limit on zarr loads) is
    offered again at the priority it became ready with, its consumer's, not at its own
    early one (which would send it ahead of every consumer again once the limit frees)."""
    n = 6
    g, core, size = _rerun_core(n, 2, 450.0, limited=True)
    held = []
    hold = core.limits.hold

    def recording_hold(name, p, i, names):
        if core.recomputed[i]:
            held.append((i, p, core._rerun_priority(i)))
        return hold(name, p, i, names)

    core.limits.hold = recording_hold
    runs, _ = drive(core, size=size)
    assert core.done and len(held) >= 1, held  # the premise: a rerun root was held
    assert all(p == again for _, p, again in held), held


def _rechunk_add_graph(pairs):
    """rechunk-add in small: a and b, each 2 * pairs chunks read (32 bytes), each chunk cut
    in two halves (splits, 16: copies, as dask's getitem makes of a half), the halves of
    two chunks merged (32), a's and b's merges added (0: stored). Sizes for ``drive``."""
    deps, groups = {}, {}
    for x in "ab":
        for t in range(2 * pairs):
            deps[f"{x}{t}"], groups[f"{x}{t}"] = [], "read"
            for h in (0, 1):
                deps[f"{x}{t}s{h}"], groups[f"{x}{t}s{h}"] = [f"{x}{t}"], "split"
        for p in range(pairs):
            for h in (0, 1):
                k = f"{x}m{p}{h}"
                deps[k], groups[k] = [f"{x}{2 * p}s{h}", f"{x}{2 * p + 1}s{h}"], "merge"
    adds = [f"add{p}{h}" for p in range(pairs) for h in (0, 1)]
    for k in adds:
        deps[k], groups[k] = [f"am{k[3:]}", f"bm{k[3:]}"], "add"
    g = make_graph(deps, adds)
    g.set_groups([groups[k] for k in g.keys])
    size = {"read": 32, "split": 16, "merge": 32, "add": 0}
    return g, [size[groups[k]] for k in g.keys]


def test_a_root_cut_in_pieces_is_dropped_with_the_piece_still_to_cut():
    """A chunk read, one half cut from it and the other half's split ready (its merge waits
    for the next chunk): the chunk is dropped and the ready split withdrawn, both to run
    again just before that merge, rather than the chunk spilled (rechunk-add at 25% of
    threaded's peak wrote 0.74x its input so). On main the ready split kept the chunk from
    being dropped: 96 bytes spilled per pair of chunks, none dropped."""
    g, sizes = _rechunk_add_graph(2)
    core = Scheduler(g, [(1, 104.0)], Policy("tidegate", 1.0), validate=True)
    core.rerun = [True] * len(g.group_names)
    runs, _ = drive(core, size=sizes.__getitem__)
    assert core.done
    again = [i for i in set(runs) if runs.count(i) > 1]
    assert again and all(g.keys[i] in ("a0", "a1", "a2", "a3", "b0", "b1", "b2", "b3")
                         for i in again)  # only reads run twice; a withdrawn split once
    assert core.n_recomputed == len(runs) - len(g) == len(again)
    assert core.bytes_dropped == 32 * len(again)
    assert core.bytes_spilled <= 64  # 192 on main
    for i in again:  # the split withdrawn with a read runs after the read's second run
        second = len(runs) - 1 - runs[::-1].index(i)
        assert any(runs.index(d) > second for d in g.dependents(i)), g.keys[i]


def _vorticity_step_graph():
    """One step of vorticity in small, one thread: per input a chunk read (100 bytes), two
    slices of it (views: a pad's slices of its chunk), a small piece cut early from the
    first slice and the rest later (a view too), each slice's rest cut (a view), the
    difference of the two rests (new memory); the two differences subtracted. dask.order's
    order: a, its first slice and small piece, then all of b's, then the rest of a's."""
    deps, groups, sizes, views = {}, {}, {}, set()

    def add(k, d, group, size, view=False):
        deps[k], groups[k], sizes[k] = d, group, size
        if view:
            views.add(k)

    for x in "ab":
        add(x, [], "read", 100)
        add(x + "1", [x], "slice", 100, True)
        add(x + "1s", [x + "1"], "cut", 1)
        add(x + "1c", [x + "1"], "cut", 100, True)
        add(x + "2", [x], "slice", 100, True)
        add(x + "2c", [x + "2"], "cut", 100, True)
        add(x + "d", [x + "1c", x + "2c"], "diff", 100)
    add("out", ["a1s", "b1s", "ad", "bd"], "sub", 100)
    g = make_graph(deps, ["out"])
    order = ["a", "a1", "a1s", "b", "b1", "b1s", "b2", "b1c", "b2c", "bd", "a2", "a1c", "a2c",
             "ad", "out"]  # fmt: skip
    g.priority = np.array([order.index(k) for k in g.keys])
    g.set_groups([groups[k] for k in g.keys])
    return g, [sizes[k] for k in g.keys], [k in views for k in g.keys]


def test_a_root_viewed_by_a_held_slice_is_dropped_with_it_not_spilled():
    """Room for b's difference is made while a's chunk is held with a slice viewing it and
    a's next slice ready: the slice is dropped (made again from the chunk), and the chunk
    is dropped too, its ready slice withdrawn, to be read again just before a's rest runs,
    rather than written to disk (vorticity at 140 MB wrote the chunk so every step: 1.0x
    its input written, 0.5x now). On the base the dropped slice left the chunk's ready
    slice without a sibling that ran, and the chunk was spilled, twice."""
    g, sizes, views = _vorticity_step_graph()
    core = Scheduler(g, [(1, 350.0)], Policy("tidegate", 1.0), validate=True)
    core.rerun = [True] * len(g.group_names)
    core.ceiling = [350.0]  # as the thread runtime sets them: a task starts within room
    core.need = [100.0] * len(g.group_names)
    for i, view in enumerate(views):
        core.views[i] = view
    core._pulls = False  # dask.order's order as given
    runs, _ = drive(core, size=sizes.__getitem__)
    assert core.done
    keys = [g.keys[i] for i in runs]
    a = g.keys.index("a")
    assert "spilled" not in [e[2] for e in core.story(a) if len(e) == 3], core.story(a)
    assert core.bytes_dropped == 100 and core.n_recomputed >= 1
    assert sorted(k for k in set(keys) if keys.count(k) > 1) == ["a", "a1"], keys
    # The chunk runs again after b's difference, before a's second slice.
    again = len(keys) - 1 - keys[::-1].index("a")
    assert keys.index("bd") < again < keys.index("a2"), keys


@settings(max_examples=80, deadline=None, phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(dags(), st.integers(1, 3), st.sampled_from([1.0, 50.0, 150.0, 400.0]),
       st.integers(0, 10**6))  # fmt: skip
def test_dropping_roots_keeps_every_invariant(dag, threads, budget, seed):
    """Any graph, tiny budgets, every root cheap to run again: validate_state holds after
    every event, the run completes, only roots run more than once, inputs are in memory
    at each Run (drive checks), and outputs end held."""
    deps, outputs = dag
    g = make_graph(deps, outputs)
    core = Scheduler(g, [(threads, budget)], Policy("tidegate", 1.1), validate=True)
    core.rerun = [True] * len(g.group_names)
    runs, _ = drive(core, seed=seed, size=lambda i: 10 * (1 + i % 7))
    assert core.done
    root = g.root.tolist()
    nodeps = (np.diff(g.dep_ptr) == 0).tolist()
    for i in range(len(g)):
        assert runs.count(i) == 1 or (root[i] and nodeps[i] and core.recomputed[i])
    assert all(core.state[i] in (MEMORY, SPILLED) for i in g.outputs.tolist())


VIEW_CASES = (
    dags(), st.integers(1, 3), st.sampled_from([1.0, 50.0, 150.0, 400.0]), st.integers(0, 10**6),
    st.booleans(), st.sampled_from([math.inf, 20.0, 100.0, 300.0]),
    st.sampled_from([0.0, 5.0, 30.0]),
)  # fmt: skip


def _with_views(dag, threads, budget, seed, roots_too, ceiling, need):
    """A core over ``dag`` with about half its single-input tasks views of their input,
    roots cheap to run again or not, and tasks starting within ``ceiling``."""
    deps, outputs = dag
    g = make_graph(deps, outputs)
    core = Scheduler(g, [(threads, budget)], Policy("tidegate", 1.1), validate=True)
    core.rerun = [roots_too] * len(g.group_names)
    core.ceiling = [ceiling]
    core.need = [need] * len(core.need)
    rng = random.Random(seed)
    single = (np.diff(g.dep_ptr) == 1).tolist()
    for i in range(len(g)):
        core.views[i] = single[i] and rng.random() < 0.5
    return core


def _ran_once_but_views(core, runs, roots_too) -> None:
    """Every task ran once, but a view or a root cheap to run again, dropped; outputs held."""
    g = core.graph
    assert core.done
    root = g.root.tolist()
    nodeps = (np.diff(g.dep_ptr) == 0).tolist()
    for i in range(len(g)):
        again = core.views[i] or (roots_too and root[i] and nodeps[i])
        assert runs.count(i) == 1 or (again and core.recomputed[i])
    assert all(core.state[i] in (MEMORY, SPILLED) for i in g.outputs.tolist())


# A root dropped with its ready piece 2, and 4 (reading 2 alone) withdrawn with them: 6
# reads 2 and 4 and waited for nothing else, but its inputs were counted per level, so
# nothing woke the root (main: "work remains but nothing runs", review17).
PIECE_AND_ITS_FOLLOWER = dict(
    dag=({0: [], 1: [], 2: [0], 3: [], 4: [2], 5: [0], 6: [2, 4]}, [1]), threads=1, budget=1.0,
    seed=0, roots_too=True, ceiling=math.inf, need=0.0,
)  # fmt: skip


@settings(max_examples=150, deadline=None, phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(*VIEW_CASES)
@example(**PIECE_AND_ITS_FOLLOWER)
def test_dropping_views_keeps_every_invariant(dag, threads, budget, seed, roots_too, ceiling,
                                              need):
    """As above with about half the single-input tasks views of their input (made again
    from it rather than spilled), roots cheap to run again or not, and tasks making room
    to start within a ceiling (where a task needing a dropped result may be woken at
    once): validate_state holds after every event, the run completes (no drop and rerun
    without end), only roots and views run more than once."""
    core = _with_views(dag, threads, budget, seed, roots_too, ceiling, need)
    runs, _ = drive(core, seed=seed, size=lambda i: 10 * (1 + i % 7))
    _ran_once_but_views(core, runs, roots_too)


def _drive_naming_buffers(core, seed, size, on_event):
    """``drive``, naming each result's buffer as the thread runtime does: a view's is its
    input's (and so, at random, is a multi-input task's: a slice of its first input), any
    other result's, or one read back from disk, its own."""
    rng = random.Random(seed)
    fresh = iter(range(1, 10**9))
    running, runs = [], []

    def take(actions):
        for a in actions:
            if type(a) is Run:
                running.append(a.task)
                runs.append(a.task)
            elif type(a) is Load:  # read back: a copy of its own
                core.rename(a.task, next(fresh))

    take(core.start())
    while running:
        i = running.pop(rng.randrange(len(running)))
        deps = core.graph.dependencies(i)
        shares = len(deps) and (core.views[i] or (len(deps) > 1 and rng.random() < 0.2))
        core.buffer[i] = core.buffer[deps[0]] if shares else next(fresh)
        take(core.handle(Finished(i, size(i))))
        on_event(core)
    return runs


@settings(max_examples=150, deadline=None, phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(*VIEW_CASES)
@example(**PIECE_AND_ITS_FOLLOWER)
def test_dropping_views_of_named_buffers_keeps_every_invariant(dag, threads, budget, seed,
                                                              roots_too, ceiling, need):
    """As above with every result's buffer named (review17 #7: the test above names none,
    so _evict_buffers and the ceiling's loans never ran in it): besides validate_state,
    what results leaving memory took from the ceiling (sharing a buffer, they freed
    nothing) comes back once their buffer's last holder goes: the ceiling plus what is
    still lent is the ceiling set, and only buffers still held are lent."""
    core = _with_views(dag, threads, budget, seed, roots_too, ceiling, need)

    def lent_back(core):
        assert set(core._taken) <= set(core._holders)  # lent only while a buffer lives
        if ceiling < math.inf:
            assert math.isclose(core.ceiling[0] + sum(core._taken.values()), ceiling), (
                core.ceiling, core._taken)

    runs = _drive_naming_buffers(core, seed, lambda i: 10 * (1 + i % 7), lent_back)
    _ran_once_but_views(core, runs, roots_too)


def test_spilling_passes_over_results_that_share_a_buffer():
    """A result viewed by another held one (and the view itself) frees nothing spilled
    alone: a result that does free memory goes first, whatever their next uses."""
    from tidegate.core import Spill
    from tidegate.policy import spill_candidates
    from tidegate.core_states import _PENDING

    # 0, 2 and 6 load; 1 views 0; 3 needs 2 and 6, then 4 needs 0, 1 and 3.
    deps = {0: [], 1: [0], 2: [], 3: [2, 6], 4: [1, 0, 3], 5: [4], 6: []}
    core = Scheduler(make_graph(deps, [5]), [(1, math.inf)], Policy("priority"))
    actions = core.start()
    held = {0, 1, 2}
    while not held <= {i for i in range(7) if core.state[i] == MEMORY}:
        (run,) = [a for a in actions if type(a) is Run]
        assert run.task in held, "the graph's order changed: fix the test's premise"
        actions = core.handle(Finished(run.task, 1000))
    core.views[1] = 1  # the body saw 1 is a view of 0's buffer
    order = [i for _, i in spill_candidates(
        core._in_memory[0], core.state, core.nbytes, core._priority, core._dependent_ptr,
        core._dependent_idx, PROCESSING, _PENDING)]  # fmt: skip
    actions = []
    core._spill(0, 1, 1, actions)
    assert [a.task for a in actions if type(a) is Spill] == [2]
    assert core._shares(0) and core._shares(1) and not core._shares(2)
    assert set(order) == held and order[0] in (0, 1)  # the shared ones' next use is furthest


def test_a_need_measured_on_small_tasks_is_not_lent_to_large_ones():
    """A group's need holds for tasks up to the inputs it was measured with (``sized``);
    a task with larger inputs needs ``grow`` times them (at most ``grow_cap``), and starts
    with that need. (vorticity's pad edges, 32 kB, ran first: the need they measured let a
    64 MB difference start beside a full budget, 1.12x the limit in CI.)"""
    deps = {"a": [], "b": [], "x": ["a"], "y": ["b"], "z": ["x", "y"]}
    g = make_graph(deps, ["z"])
    g.set_groups(["a", "b", "sub", "sub", "z"])  # x and y: one group, two sizes
    ix = {k: i for i, k in enumerate(g.keys)}
    core = Scheduler(g, [(1, 1e9)], Policy("priority"), validate=True)
    sub = core._group[ix["x"]]
    core.need[sub], core.sized[sub] = 5.0, 10.0  # measured on x's 10-byte input
    core.grow, core.grow_cap = 3.0, 2500.0
    core.ceiling[0] = 1e6  # a body that measures: finite
    started = {}

    def seen(core):
        for k in ("x", "y"):
            if core.state[ix[k]] == PROCESSING:
                started[k] = core._needs[ix[k]]

    sizes = {ix["a"]: 10, ix["b"]: 1000}
    drive(core, size=lambda i: sizes.get(i, 10), on_event=seen, started=None)
    assert core.done
    assert started == {"x": 5.0, "y": 2500.0}, started  # y: 3 x 1000, capped at 2500
    core.sized[sub] = 900.0  # measured on inputs within a quarter of y's: the need holds
    core.nbytes[ix["b"]] = 1000
    assert core._task_need(ix["y"]) == 5.0
    core.sized[sub] = math.inf  # a body that does not measure: the group's need, always
    assert core._task_need(ix["y"]) == 5.0


def test_an_all_to_all_rechunk_below_its_working_set_reads_back_what_it_must_only():
    """Three pieces M0-M2 cut in five slices each, merge j taking slice j of every piece,
    by priority cut one slice of each per merge; one and a half pieces fit. Each cut
    reading its piece back wrote another (4x the input on main, topk's 3.6-6.3 GB of 384
    MB); the slices of a piece in memory are cut before one is read back (< 1.5x)."""
    deps = {}
    for m in range(3):
        deps[f"M{m}"] = []
        deps.update({f"s{m}-{j}": [f"M{m}"] for j in range(5)})
    deps.update({f"g{j}": [f"s{m}-{j}" for m in range(3)] for j in range(5)})
    deps["out"] = [f"g{j}" for j in range(5)]
    g = make_graph(deps, ["out"])
    sizes = {i: 1000 if k[0] == "M" else 200 if k[0] == "s" else 10 for i, k in enumerate(g.keys)}
    for threads in (1, 2):
        for seed in range(3):
            core = Scheduler(g, [(threads, 1600)], Policy("tidegate", 1.1), validate=True)
            core.ceiling[0] = 1600.0
            drive(core, seed=seed, size=sizes.__getitem__)
            assert core.done
            assert core.bytes_spilled <= 1.5 * 3000, (threads, seed, core.bytes_spilled)


def test_a_shared_buffer_is_evicted_whole_and_gives_the_ceiling_back():
    """Slices of two chunks, the chunks released: each chunk's memory goes with its last
    slice only. Room for less than a slice takes one chunk's slices, not every slice of
    both in next-use order (main wrote 800 bytes for 150), and the ceiling lowered as the
    first ones left (they freed nothing then) is given back when the last one goes."""
    from tidegate.core import Spill

    deps = {"A": [], "B": [], "Z": []}
    deps.update({f"{c}{j}": [c.upper()] for c in "ab" for j in range(4)})
    deps.update({f"g{j}": [f"a{j}", f"b{j}", "Z"] for j in range(4)})
    deps["out"] = [f"g{j}" for j in range(4)]
    g = make_graph(deps, ["out"])
    order = ["A", "B", *(f"{c}{j}" for c in "ab" for j in range(4)), "Z",
             *(f"g{j}" for j in range(4)), "out"]  # fmt: skip
    g.priority = np.array([order.index(k) for k in g.keys])  # every slice cut before Z
    ix = {k: i for i, k in enumerate(g.keys)}
    core = Scheduler(g, [(1, math.inf)], Policy("priority"), validate=True)
    actions = core.start()
    slices = {ix[f"{c}{j}"] for c in "ab" for j in range(4)}
    while not all(core.state[i] == MEMORY for i in slices):
        (i,) = [a.task for a in actions if type(a) is Run]
        if g.keys[i] != "Z":
            core.buffer[i] = 1 if g.keys[i] in ("A", "a0", "a1", "a2", "a3") else 2
        actions = core.handle(Finished(i, 400 if g.keys[i] in ("A", "B") else 100))
    assert core.state[ix["A"]] == core.state[ix["B"]] == RELEASED
    assert core._holders == {1: {ix[f"a{j}"] for j in range(4)}, 2: {ix[f"b{j}"] for j in range(4)}}
    core.ceiling[0] = 10_000.0
    actions = []
    core._spill(0, 150, core._stimulus, actions)
    spilled = {g.keys[a.task] for a in actions if type(a) is Spill}
    assert spilled in ({"a0", "a1", "a2", "a3"}, {"b0", "b1", "b2", "b3"}), spilled
    assert core.bytes_spilled == 400
    assert core.ceiling[0] == 10_000.0


def test_a_buffer_whose_holders_cannot_all_go_is_not_spilled_for_room():
    """Results the body names as one buffer free memory only together: making room for a
    task, a chunk whose slice is that task's input is not spilled (it would be written
    out and stay in memory: at vorticity's smallest limit a 64 MB difference then started
    13 MB past the limit), and the books of who holds which buffer stay exact."""
    from tidegate.core import Spill

    deps = {"a": [], "v": ["a"], "c": [], "t": ["v", "c"], "z": ["t", "a"]}
    g = make_graph(deps, ["z"])
    ix = {k: i for i, k in enumerate(g.keys)}
    core = Scheduler(g, [(1, 1e9)], Policy("priority"), validate=True)
    core.buffer[ix["a"]] = core.buffer[ix["v"]] = 7  # v: a slice of a
    core.buffer[ix["c"]] = 8
    core.ceiling[0], core.need[0] = 3500.0, 1000.0  # t: 3000 held + 1000 > 3500
    actions, spilled = core.start(), []
    while not core.done:
        spilled += [g.keys[a.task] for a in actions if type(a) is Spill]
        if core.state[ix["t"]] == PROCESSING:
            assert spilled == [], spilled  # a frees nothing while v, t's input, is held
            assert core._holders == {7: {ix["a"], ix["v"]}, 8: {ix["c"]}}
            core.ceiling[0] = math.inf
        (i,) = [a.task for a in actions if type(a) is Run]
        actions = core.handle(Finished(i, 1000))
    assert core._holders == {}


def test_a_task_about_to_start_makes_its_own_room_sparing_its_inputs():
    """Held results plus the need of a task about to start stay within the worker's
    ceiling: results needed later are spilled first, the task's own inputs never (a budget
    that kept the largest need for every thread spilled those, to read them back at once)."""
    from tidegate.core import Spill

    deps = {0: [], 1: [0], 2: [0], 3: [1, 2]}  # one thread runs 0, 1, 2, 3
    core = Scheduler(make_graph(deps, [3]), [(1, 10_000)], Policy("priority"), validate=True)
    assert [a.task for a in core.start() if type(a) is Run] == [0]
    assert [a.task for a in core.handle(Finished(0, 1000)) if type(a) is Run] == [1]
    core.ceiling[0], core.need[0] = 2500, 1000  # 0 and 1 held (2000) + 2's need > 2500
    actions = core.handle(Finished(1, 1000))
    assert [(type(a), a.task) for a in actions] == [(Spill, 1), (Run, 2)]
    core.ceiling[0] = math.inf
    assert core.handle(Finished(2, 1000))  # 1 is read back for 3
    assert core.handle(Finished(3, 10))
    assert core.done


def test_a_task_beside_a_running_one_starts_only_where_it_fits():
    """Fewer tasks at once rather than spill: with a task running, the next starts only if
    it fits the ceiling as things are; else it waits for the running one (at 300 MB,
    vorticity and rechunk-add wrote 32-480 MB to start second tasks, and 0 with this). The
    first task on an idle worker still makes its room."""
    from tidegate.core import Spill

    deps = {f"r{i}": [] for i in range(4)}
    deps.update({f"f{i}": [f"r{i}"] for i in range(4)})  # f_i needs 50 while it runs
    deps["s"] = [f"f{i}" for i in range(4)]
    g = make_graph(deps, ["s"])
    g.set_groups([k[0] for k in g.keys])
    for seed in range(5):
        core = Scheduler(g, [(2, 1e9)], Policy("priority"), validate=True)
        core.need[core._group[g.keys.index("f0")]] = 50.0
        core.ceiling[0] = 100.0  # a body that measures: finite
        sizes = {i: 30 if g.keys[i][0] == "r" else 10 for i in range(len(g))}
        beside, most = [], []
        handle = core.handle

        def watched(event, core=core, handle=handle, beside=beside, most=most):
            running = core.workers[0].processing - 1  # the task finishing runs no more
            actions = handle(event)
            for a in actions:
                if type(a) is Spill and running:
                    beside.append(a.task)  # room made for a second task
                running += type(a) is Run
                most.append(running)
            return actions

        core.handle = watched
        drive(core, seed=seed, size=sizes.__getitem__)
        assert core.done
        assert beside == [], (seed, beside)  # before: seeds 2-4 spilled 1-2 results so
        assert max(most) == 2  # two at once where they fit


def test_roots_whose_results_are_not_data_leave_their_slots():
    """Roots whose results are a few bytes (a store's None) waiting for a final task do not
    count as data in flight: both threads stay busy. (Counted so, weighted's stores filled
    the three root slots and the rest ran one at a time: 1.05 tasks at once at 300 MB.)"""
    from tidegate.core import Run

    n = 25  # weighted's stores: roots, their only inputs two shared weights
    deps = {"w0": [], "w1": []}
    deps.update({f"s{i}": ["w0", "w1"] for i in range(n)})
    deps["end"] = [f"s{i}" for i in range(n)]
    g = make_graph(deps, ["end"])
    assert g.root[g.keys.index("s3")]
    for seed in range(3):
        core = Scheduler(g, [(2, 1e9)], Policy("tidegate", 1.1), validate=True)
        running = [a.task for a in core.start() if type(a) is Run]
        rng = random.Random(seed)
        at_once = []
        while running:
            at_once.append(len(running))
            i = running.pop(rng.randrange(len(running)))
            size = 8e6 if g.keys[i][0] == "w" else 16
            running += [a.task for a in core.handle(Finished(i, size)) if type(a) is Run]
        assert core.done
        # the weights, then one store alone (its size unknown yet), then two at a time
        assert at_once[3:n] == [2] * (n - 3), (seed, at_once)  # before: 2, 1, 1, 2, 1, 1, ...


def test_a_root_completing_a_consumer_waits_for_ready_tasks_past_the_count():
    """A root may pass the in-flight count when it completes a consumer, but not while a
    ready task waits for the thread (policy.may_admit_root's ``queued``): that task comes
    later in priority order and may be what frees held data (a stencil's halo slice, ready
    once its block is held; admitted ahead of them, tidegate.get's 6000^2 stencil on 2
    threads held up to 15 blocks, 9-10 now). Here x's slice s is ready when v, which
    completes t beside u, heads the roots at a full count. Fails on main (v ran first)."""
    deps = {"u": [], "x": [], "v": [], "s": ["x"], "t": ["u", "v"]}
    g = make_graph(deps, ["s", "t"])
    g.priority = np.array([["u", "x", "v", "s", "t"].index(k) for k in g.keys])
    ix = {k: i for i, k in enumerate(g.keys)}
    core = Scheduler(g, [(2, math.inf)], Policy("tidegate", 1.0), validate=True)  # cap 2
    assert {a.task for a in core.start()} == {ix["u"], ix["x"]}
    # x lands untouched beside u still processing: the count is full (1 + 1 of 2).
    assert core._completes_consumer(ix["v"], 0)
    assert [a.task for a in core.handle(Finished(ix["x"], 8_000_000))] == [ix["s"]]
    # The slice ran and consumed x: the count frees, v starts.
    assert ix["v"] in {a.task for a in core.handle(Finished(ix["s"], 100)) if type(a) is Run}


def test_a_view_run_again_can_be_withdrawn_with_its_root():
    """A view dropped while its root stays held runs again under its consumer's priority,
    not its own; its root dropped next withdraws it from the ready heap. The core looked
    for it under its own priority and broke (review18 #1; found by fuzzing: seed 3739)."""
    rng = random.Random(3739)
    n = rng.randint(3, 40)
    deps = {}
    for i in range(n):
        k = rng.randint(0, min(i, 4))
        deps[i] = sorted(set(rng.sample(range(i), k))) if i else []
    outs = rng.sample(range(n), rng.randint(1, 3))
    layers = rng.randint(1, 4)

    def key(i):
        return (f"layer{i % layers}", i)

    g = testing.make_graph({key(i): [key(d) for d in ds] for i, ds in deps.items()},
                           [key(i) for i in outs])  # fmt: skip
    threads, budget = rng.randint(1, 3), rng.choice([1.0, 50.0, 150.0, 400.0])
    core = Scheduler(g, [(threads, budget)], Policy("tidegate", 1.1), validate=True)
    core.rerun = [rng.random() < 0.7] * len(g.group_names)
    core.ceiling = [rng.choice([math.inf, 20.0, 100.0, 300.0])]
    core.need = [rng.choice([0.0, 5.0, 30.0])] * len(core.need)
    single = (np.diff(g.dep_ptr) == 1).tolist()
    for i in range(len(g)):
        core.views[i] = single[i] and rng.random() < 0.5
    core._pulls = False  # (the case needs no consumer pulled ahead)
    runs, _ = drive(core, seed=3739, size=lambda i: 10 * (1 + i % 7))
    assert core.n_recomputed > 0  # the case: something ran again
    assert set(g.keys[i] for i in outs) <= {g.keys[t] for t in runs}


def _random_graph(rng: random.Random):
    """A random DAG of up to 30 tasks in up to 4 layers, and up to 3 outputs."""
    n, layers = rng.randint(1, 30), rng.randint(1, 4)
    key = lambda i: (f"l{i % layers}", i)  # noqa: E731
    deps = {key(i): [key(d) for d in sorted({rng.randrange(i) for _ in range(
        rng.randint(0, min(i, 4)))})] if i else [] for i in range(n)}  # fmt: skip
    return deps, [key(i) for i in rng.sample(range(n), rng.randint(1, min(3, n)))]


def _actions_with_threads(seed: int, threads: int, fit: int) -> list:
    rng = random.Random(seed)
    deps, outs = _random_graph(rng)
    g = testing.make_graph(deps, outs)
    budget = rng.choice([50.0, 150.0, 400.0, 1e4, 1e12])
    core = Scheduler(g, [(fit, budget)], Policy("tidegate", rng.choice([0.5, 1.0, 1.1, 2.0])))
    sizes = [rng.choice([0, 1, 10, 40, 100]) for _ in range(len(g))]
    core.ceiling[0] = rng.choice([1e15, 300.0, 1000.0])
    core.fit[0], core.workers[0].threads = fit, threads  # (core.out: inf, no extra fits)
    running, actions = [], []

    def take(acts):
        for a in acts:
            actions.append(a)
            if type(a) is Run:
                running.append(a.task)

    take(core.start())
    while running:
        i = running.pop(rng.randrange(len(running)))
        take(core.handle(Finished(i, sizes[i])))
    return actions


def test_threads_past_those_fitted_that_fit_nothing_change_no_decision():
    """Given more threads than those fitted to memory, none of which any task fits beside
    the running ones, the core decides as one given the fitted threads alone: counted free,
    they let roots past the count ahead of the ready tasks that free them (review19)."""
    for seed in range(150):
        for fit, threads in ((1, 2), (2, 4), (1, 4)):
            assert _actions_with_threads(seed, fit, fit) == _actions_with_threads(
                seed, threads, fit), (seed, fit, threads)
