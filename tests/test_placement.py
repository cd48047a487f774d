"""Shared inputs (issue 9, part 2): neighbours meet on one worker, consumers follow their own
data, and inputs read by many tasks (grids, broadcast weights, store handles) pull nothing.

The pure decisions are tested directly; the twin runs the seed's vorticity shape (two loads
per step meeting three shared grid chains) and its virtual numbers are asserted exactly
against dask's queuing in the same run.
"""

from __future__ import annotations

import math
import time

import dask
import numpy as np
import pytest
from dask import delayed

from tidegate.books import Books
from tidegate.policy import (
    MEETING_FANOUT,
    Policy,
    committed,
    meeting_plan,
    further_meeting,
    further_partners,
    meeting_partners,
    own_input,
    place_consumer,
    pulls_consumer,
)
from tidegate.testing import QUIET_MEMORY

from conftest import local_client, twin_vorticity_trace

try:
    from distributed import WorkerPlugin
except ImportError:  # the pure tests run without the extra
    WorkerPlugin = object


def _dependents(deps: dict) -> dict:
    """Invert a dependency mapping."""
    dependents: dict = {k: [] for k in deps}
    for k, ds in deps.items():
        for d in ds:
            dependents[d].append(k)
    return dependents


def _graph(steps):
    """Per step u-t, v-t -> vort-t, which also reads grid (shared by every step)."""
    deps = {"grid": []}
    for t in range(steps):
        deps[f"u-{t}"] = []
        deps[f"v-{t}"] = []
        deps[f"vort-{t}"] = [f"u-{t}", f"v-{t}", "grid"]
    dependents = _dependents(deps)
    return deps, dependents


def test_a_grid_read_by_every_step_is_no_partner():
    deps, dependents = _graph(MEETING_FANOUT + 1)
    where = {"grid": ["w0"], "v-3": ["w1"]}
    scores = meeting_partners("u-3", dependents.__getitem__, deps.__getitem__,
                              lambda t: where.get(t, []))  # fmt: skip
    assert scores == {"w1": 1}  # v-3's worker only; before: {"w0": 1, "w1": 1}
    del where["v-3"]
    assert meeting_partners("u-3", dependents.__getitem__, deps.__getitem__,
                            lambda t: where.get(t, [])) == {}  # fmt: skip


def test_partners_past_a_meeting_and_one_meeting_further():
    """x - x.mean(): a load's chunk mean meets its neighbour's in the mean's first combine,
    though the subtraction (a meeting with the shared mean) comes first. rechunk + add:
    the merge of u's halves meets the merge of v's; with no u placed, v's worker is a
    further partner."""
    deps = {}
    for i in range(MEETING_FANOUT + 1):
        deps[f"x-{i}"] = []
        deps[f"chunk-{i}"] = [f"x-{i}"]
        deps[f"sub-{i}"] = [f"x-{i}", "mean"]
    deps["mean"] = ["combine-0"]
    deps["combine-0"] = ["chunk-0", "chunk-1"]
    deps.update({"u-0": [], "u-1": [], "v-0": [], "v-1": [], "mu": ["u-0", "u-1"],
                 "mv": ["v-0", "v-1"], "add": ["mu", "mv"]})
    dependents = _dependents(deps)
    where = {"x-1": ["w1"], "v-1": ["w2"]}.get
    args = (dependents.__getitem__, deps.__getitem__, lambda t: where(t, []))
    assert meeting_partners("x-0", *args) == {"w1": 1}
    assert meeting_partners("u-0", *args) == {}
    assert further_partners("u-0", *args) == {"w2": 1}
    assert further_partners("v-0", *args) == {}  # the other side (u-0, u-1) is nowhere yet


def test_a_further_meeting_is_whole_only_when_its_other_inputs_are_all_found():
    """The root's side is all the add lacks (the other merge's loads run on w2): whole. A
    tree reduction's next level with a subtree nowhere yet: only a hint."""
    deps = {"u-0": [], "u-1": [], "v-0": [], "v-1": [], "mu": ["u-0", "u-1"],
            "mv": ["v-0", "v-1"], "add": ["mu", "mv"]}
    for i in range(6):
        deps[f"x-{i}"] = []
    deps.update({"c-0": ["x-0", "x-1"], "c-1": ["x-2", "x-3"], "c-2": ["x-4", "x-5"],
                 "top": ["c-0", "c-1", "c-2"]})
    dependents = _dependents(deps)
    where = {"v-1": ["w2"], "x-2": ["w3"]}.get
    args = (dependents.__getitem__, deps.__getitem__, lambda t: where(t, []))
    assert further_meeting("u-0", *args) == ({"w2": 1}, True)
    assert further_meeting("x-0", *args) == ({"w3": 1}, False)  # c-2's loads are nowhere
    where = {"v-1": ["w2"], "x-2": ["w3"], "x-5": ["w4"]}.get
    assert further_meeting("x-0", *args) == ({"w3": 1, "w4": 1}, True)
    assert further_meeting("v-0", *args) == ({}, False)


class _Task:
    """A task equal by key, as dask's TaskState is: its == is a Python call."""

    eqs = 0

    def __init__(self, key):
        self.key = key

    def __eq__(self, other):
        _Task.eqs += 1
        return isinstance(other, _Task) and self.key == other.key

    def __hash__(self):
        return hash(self.key)


def test_walks_compare_a_task_with_itself_without_a_call_and_equal_tasks_still_match():
    """x-0 -> chunk-0 -> combine <- chunk-1 <- x-1 (held on w1), in sets as dask keeps
    them. The walk passes chunk-0 itself (no == call for it: the plugin walks every queued
    root); a distinct object equal to chunk-0 (the thread runtime's tasks are ints, equal
    but not always the same object) is still chunk-0, not another input to walk up."""
    t = {k: _Task(k) for k in ("x-0", "x-1", "chunk-0", "chunk-1", "combine")}
    deps = {"x-0": set(), "x-1": set(), "chunk-0": {t["x-0"]}, "chunk-1": {t["x-1"]},
            "combine": {t["chunk-0"], t["chunk-1"]}}
    dependents = {"x-0": {t["chunk-0"]}, "x-1": {t["chunk-1"]}, "chunk-0": {t["combine"]},
                  "chunk-1": {t["combine"]}, "combine": set()}
    where = {"x-1": ["w1"], "x-0": ["w0"]}
    args = (lambda a: dependents[a.key], lambda a: deps[a.key],
            lambda a: where.get(a.key, []))
    _Task.eqs = 0
    assert meeting_partners(t["x-0"], *args) == {"w1": 1}
    assert _Task.eqs == 1  # chunk-1 against chunk-0 only (before: chunk-0 too)
    assert further_meeting(t["x-0"], *args) == ({}, False)  # combine is the last task
    deps["combine"] = {_Task("chunk-0"), t["chunk-1"]}  # equal to chunk-0, not it
    assert meeting_partners(t["x-0"], *args) == {"w1": 1}  # not w0: chunk-0 is not walked


def test_lacks_names_the_roots_a_meeting_still_needs():
    """u-t's meeting lacks v-t while v-t is nowhere: a root (no inputs, or a load from a
    store handle). Not lacking: an input held or processing somewhere, a grid read by
    every step, a computed input (its chain starts at a task with several inputs). A root
    lacked by several meetings (rechunk: one load split into three merges) is one root."""
    deps, dependents = _graph(MEETING_FANOUT + 1)
    where = {"grid": ["w0"]}
    args = (dependents.__getitem__, deps.__getitem__, lambda t: where.get(t, []))
    lacks: set = set()
    assert meeting_partners("u-3", *args, lacks=lacks) == {}
    assert lacks == {"v-3"}
    where["v-3"] = ["w1"]
    lacks.clear()
    assert meeting_partners("u-3", *args, lacks=lacks) == {"w1": 1}
    assert lacks == set()
    # from a store handle: store -> load-t -> sel-t, meeting y-t and x-t = f(a, b)
    n = MEETING_FANOUT + 1
    deps = {"store": [], "a": [], "b": []}
    for t in range(n):
        deps.update({f"load-{t}": ["store"], f"sel-{t}": [f"load-{t}"], f"y-{t}": [],
                     f"x-{t}": ["a", "b"], f"m-{t}": [f"y-{t}", f"sel-{t}", f"x-{t}"]})
    # rechunk: u-0 and u-1 each split three ways, the splits merged pairwise
    deps.update({"u-0": [], "u-1": []})
    for k in range(3):
        deps.update({f"s0-{k}": ["u-0"], f"s1-{k}": ["u-1"], f"merge-{k}": [f"s0-{k}", f"s1-{k}"]})
    dependents = _dependents(deps)
    args = (dependents.__getitem__, deps.__getitem__, lambda t: [])
    lacks = set()
    meeting_partners("y-0", *args, lacks=lacks)
    assert lacks == {"load-0"}  # not x-0: computed, no root to reserve
    lacks = set()
    meeting_partners("u-0", *args, lacks=lacks)
    assert lacks == {"u-1"}


def test_a_grid_read_by_few_is_still_a_meeting_place():
    deps, dependents = _graph(3)
    where = {"grid": ["w0"]}
    assert meeting_partners("u-1", dependents.__getitem__, deps.__getitem__,
                            lambda t: where.get(t, [])) == {"w0": 1}  # fmt: skip


def test_a_root_waits_for_its_partners_busy_worker_not_for_any_idle_one():
    from tidegate.policy import place_root

    # partner on worker 0, which is busy and refuses now; worker 1 idle and admits
    assert place_root([1, 0], [False, True], [False, True], [2, 0]) is None
    # the partner's worker idle and still refusing (its data waits elsewhere): progress
    assert place_root([1, 0], [False, True], [True, True], [2, 0]) == 1
    assert place_root([1, 0], [True, True], [False, True], [2, 0]) == 0
    assert place_root([0, 0], [False, True], [False, False], [2, 1]) == 1


def test_shared_partners_rank_workers_but_make_no_root_wait():
    """A grid read by every step of a short series (fewer readers than MEETING_FANOUT) is
    a partner, flagged shared: the root prefers its worker when that admits, but neither
    waits for it while it is busy nor passes its in-flight count for it."""
    from tidegate.policy import place_root

    deps, dependents = _graph(3)
    where = {"grid": ["w0"]}
    args = (dependents.__getitem__, deps.__getitem__, lambda t: where.get(t, []))
    shared: dict = {}
    assert meeting_partners("u-1", *args, shared=shared) == {"w0": 1}
    assert shared == {"w0": 1}
    where["v-1"] = ["w1"]
    shared = {}
    assert meeting_partners("u-1", *args, shared=shared) == {"w0": 1, "w1": 1}
    assert shared == {"w0": 1}  # v-1 is u-1's own partner
    # worker 0 holds the grid, busy and refusing; worker 1 busy and admitting
    assert place_root([1, 0], [False, True], [False, False], [2, 1]) is None  # unflagged: waits
    assert place_root([1, 0], [False, True], [False, False], [2, 1], [1, 0]) == 1
    assert place_root([1, 0], [True, True], [False, False], [2, 1], [1, 0]) == 0  # ranks
    b = Books(Policy("tidegate", 1.0))
    for w in ("a", "c"):
        b.add_worker(w, 1, math.inf)
        b.on_run(f"busy-{w}", w, False, "x", math.nan)
    b.on_run("r0", "a", True, "r", math.nan)  # a's one slot is taken
    assert b.place("r1", math.nan, "r", {"a": 1}, ["c"]) is None  # an own partner: waits
    assert b.place("r1", math.nan, "r", {"a": 1}, ["c"], shared={"a": 1}) == "c"


def test_a_root_of_shared_data_goes_by_load_and_a_handle_is_no_partner():
    """seed weighted's 8 MB chunks: every input of their meetings is read by many (the
    other chunk's getitem, two store handles), so with shared partners only a chunk goes
    to the least loaded worker, the fewest partners breaking ties (policy.by_load,
    SHARED_BY_LOAD), not beside the other chunk; a store handle read by the meetings is no
    partner (HANDLES_NO_PARTNERS). tail32-findings.txt."""
    from tidegate import policy as P
    from tidegate.policy import by_load, place_root

    # worker 0 holds the other chunk (12 shared partners), both admit, equal loads
    assert place_root([12, 0], [True, True], [False, False], [0.5, 0.5], [12, 0]) == 0
    assert place_root([12, 0], [True, True], [False, False], [0.5, 0.5], [12, 0],
                      by_load=True) == 1
    assert place_root([12, 0], [True, True], [False, False], [0.25, 0.5], [12, 0],
                      by_load=True) == 0  # less loaded first
    # Books: the least loaded candidate is examined too, past the one partner's worker
    b = Books(Policy("tidegate", 1.0))
    for w in ("a", "c"):
        b.add_worker(w, 2, math.inf)
    b.on_run("r0", "a", True, "r", math.nan)
    assert b.place("r1", math.nan, "r", {"a": 12}, ["c"], shared={"a": 12}) == "a"
    assert b.place("r2", math.nan, "r", {"a": 12}, ["c"], shared={"a": 12},
                   by_load=True) == "c"
    # the graph: two chunks a, b -> ga, gb; handles h1, h2; 12 stores read all four
    deps: dict = {"a": [], "b": [], "h1": [], "h2": [], "ga": ["a"], "gb": ["b"]}
    for i in range(12):
        deps[f"s{i}"] = ["ga", "gb", "h1", "h2"]
    dependents: dict = {k: [] for k in deps}
    for k, ins in deps.items():
        for d in ins:
            dependents[d].append(k)
    where = {"ga": ["w0"], "h1": ["w1"], "h2": ["w1"]}
    plan = meeting_plan("b", dependents.__getitem__, deps.__getitem__)
    assert by_load(plan, 1, True, math.nan)  # a chunk: meetings of shared inputs only
    assert not by_load(meeting_plan("h1", dependents.__getitem__, deps.__getitem__),
                       12, True, math.nan)  # a handle by structure
    args = (dependents.__getitem__, deps.__getitem__, lambda t: where.get(t, []))
    assert meeting_partners("b", *args, plan=plan) == {"w0": 12}
    old = P.HANDLES_NO_PARTNERS
    try:
        P.HANDLES_NO_PARTNERS = False
        plan = meeting_plan("b", dependents.__getitem__, deps.__getitem__)
        assert meeting_partners("b", *args, plan=plan) == {"w0": 12, "w1": 24}
    finally:
        P.HANDLES_NO_PARTNERS = old


def test_place_consumer_follows_the_bytes_not_dasks_balance():
    assert place_consumer({}, "a") == "a"  # nothing local: dask's choice
    assert place_consumer({"a": 5, "b": 5}, "b") == "b"  # a tie: dask balances
    assert place_consumer({"a": 10, "b": 5}, "b") == "a"
    assert place_consumer({"a": 10, "c": 10}, "b") == "a"  # ties: the first by id


def test_an_indexer_computed_from_nothing_does_not_pull_its_consumer():
    """policy.pulls_consumer: a ~280-byte indexer beside 15.6 MB loads is no data (a
    groupby month cut then goes where dask sends it, with its chunk); data of any size
    near what roots load, or anything while no root has loaded, still pulls."""
    assert not pulls_consumer(280, 15.6e6)
    assert pulls_consumer(1e6, 15.6e6)
    assert pulls_consumer(280, 0.0)  # nothing loaded yet: no scale to judge by
    assert pulls_consumer(-1, 15.6e6)  # unknown size: counted as before


def test_own_inputs_are_one_definition_for_placement_and_stealing():
    """policy.own_input: what place_consumer's ``local`` counts (hooks) and what
    keeps_its_worker counts (server, stealing) are one rule (one28's audit: stealing
    counted a tiny indexer held elsewhere and left large constants aside)."""
    from types import SimpleNamespace

    from tidegate.distributed import server

    assert own_input(15.6e6, 3, False, 15.6e6)  # a chunk read by few
    assert not own_input(15.6e6, 8, False, 15.6e6)  # read by many: copied everywhere
    assert not own_input(0, 1, False, 15.6e6) and not own_input(-1, 1, False, 15.6e6)
    assert not own_input(280, 1, True, 15.6e6)  # an indexer computed from nothing
    assert own_input(280, 1, False, 15.6e6)  # small, but derived from data
    assert own_input(280, 1, True, 0.0)  # nothing loaded yet: no scale to judge by
    assert own_input(8e6, 2, True, 15.6e6)  # a constant as large as data

    here, there = object(), object()

    def task(nbytes, who, deps=(), readers=1):
        return SimpleNamespace(nbytes=nbytes, who_has={who}, dependencies=list(deps),
                               dependents=set(range(readers)))  # fmt: skip

    chunk = task(15.6e6, here, deps=[task(1, here)])
    indexer = task(280, there)  # computed from nothing, held elsewhere
    grid = task(15.6e6, there, deps=[task(1, there)], readers=30)
    split = SimpleNamespace(processing_on=here, dependencies=[chunk, indexer, grid])
    loaded = SimpleNamespace(books=SimpleNamespace(roots_max=15.6e6), _slow_groups=set(),
                             _pace_moved=set())
    assert server._inputs_all_here(split, loaded)  # the indexer and the grid aside
    nothing = SimpleNamespace(books=SimpleNamespace(roots_max=0.0), _slow_groups=set(),
                              _pace_moved=set())
    assert not server._inputs_all_here(split, nothing)  # no load yet: the indexer counts
    alone = SimpleNamespace(processing_on=here, dependencies=[indexer, grid])
    assert not server._inputs_all_here(alone, loaded)  # nothing of its own here
    # a worker found clearly slower at a root group: stealing may move it
    # (policy.steals_beside_slower)
    slow = SimpleNamespace(books=loaded.books, _slow_groups={"open-u"}, _pace_moved=set())
    assert not server._inputs_all_here(split, slow)


def test_a_consumer_processing_where_its_inputs_are_frees_their_slots():
    books = Books(Policy(saturation=1.0))
    books.add_worker("w", 2, math.inf)
    for r in ("u", "v"):
        books.on_run(r, "w", True, "g", 10.0)
        books.on_finished(r, 10.0, (), False, True)
    books.on_run("c", "w", False, "c", math.nan)  # the consumer: processing, not idle
    assert books.workers["w"].roots_in_flight == 2
    assert not books.admits("w", "x", 10.0, "g", False)
    books.on_consuming("c", ["u", "v"], "s1")
    assert books.workers["w"].roots_in_flight == 1  # the running consumer keeps one slot
    assert books.admits("w", "x", 10.0, "g", False)
    books.validate()
    books.on_finished("c", 1.0, ["u", "v"], False, True)
    assert books.workers["w"].roots_in_flight == 0
    books.validate()
    assert [e[1:3] for e in books.story("u")] == [("landed", "consumed")]
    assert [e[1:3] for e in books.story("v")] == [("landed", "consuming")]


# -- the twin ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def vorticity():
    pytest.importorskip("distributed")
    from tidegate.sim import simulate
    from tidegate.sim.workloads import build

    w = build("vorticity", 60, 1e6, store=False)
    return {r.policy: r for r in simulate(
        w.graph, keys=w.keys, sizes=w.sizes, durations=w.durations, workers=4,
        threads_per_worker=2, policy=["queue", "tidegate"], validate=True,
    )}  # fmt: skip


def _where(r):
    return {t.key: t.worker for t in r.trace.tasks}


def test_twin_vorticity_loads_and_their_consumer_meet(vorticity):
    where = _where(vorticity["tidegate"])
    for t in range(60):
        assert where[str(("open-u", t))] == where[str(("open-v", t))] \
            == where[str(("vorticity-store", t))], t  # fmt: skip
    moved = [x.key for x in vorticity["tidegate"].trace.transfers if "open-" in x.key]
    assert moved == []  # only the grids (one copy per worker) and the handles travel
    queue = _where(vorticity["queue"])
    assert sum(queue[str(("open-u", t))] != queue[str(("open-v", t))] for t in range(60)) > 20


def test_twin_vorticity_holds_and_moves_less_than_queuing(vorticity):
    q, t = vorticity["queue"], vorticity["tidegate"]
    # Seen under PYTHONHASHSEED 1-3 (set orders differ): tidegate 8-11 MB and 9 MB moved
    # (the grids and handles), queue 12-13 MB and 70-72 MB.
    assert max(t.peak_memory_per_worker) <= 0.9 * max(q.peak_memory_per_worker)
    assert t.bytes_transferred <= 0.2 * q.bytes_transferred
    # Seen 1.03-1.12x here, where 1 ms latencies weigh against 5 ms loads; 0.98x at the
    # seed's scale (bench/twin_workloads.py).
    assert t.makespan <= 1.15 * q.makespan


# -- a real LocalCluster: the demo's vorticity-files shape --------------------------------
def _open(name, t):
    return (name, t)  # a handle on one step's file: tiny


def _read(handle, size):
    return np.full(size, float(handle[1]))  # the step's data, one hop below the root


def _grid(k, size):
    return np.full(size, 1.0 + k)


def _metric(g):
    return g * 1.01


def _vort(u, v, dx, dy, area):
    time.sleep(0.005)
    return float(((v - u) / dx / dy * area).sum())


def vorticity_files(steps=32, size=100_000):
    """Per step: open-a/open-b (roots) -> read-a/read-b (800 kB) -> vort, which also reads
    three grid chains shared by every step; the vorticities summed."""
    grid = [delayed(_metric)(delayed(_grid)(k, size, dask_key_name=f"open-grid-{k}"),
                             dask_key_name=f"grid-{k}") for k in range(3)]  # fmt: skip
    out = []
    for t in range(steps):
        u, v = (delayed(_read)(delayed(_open)(n, t, dask_key_name=f"open-{n}-{t}"), size,
                               dask_key_name=f"read-{n}-{t}") for n in "ab")  # fmt: skip
        out.append(delayed(_vort)(u, v, *grid, dask_key_name=f"vort-{t}"))
    return delayed(sum)(out)


class Moved(WorkerPlugin):
    """Keys with a prefix that arrived by transfer, and the peak number held at once."""

    name = "moved"

    def __init__(self, prefix):
        self.prefix, self.moved, self.alive = prefix, 0, 0

    def setup(self, worker):
        self.worker = worker

    def transition(self, key, start, finish, **kwargs):
        if not (isinstance(key, str) and key.startswith(self.prefix)):
            return
        if start == "flight" and finish == "memory":
            self.moved += 1
        n = sum(1 for k in self.worker.data if isinstance(k, str) and k.startswith(self.prefix))
        self.alive = max(self.alive, n)


@pytest.fixture(scope="module")
def client():
    pytest.importorskip("distributed")
    with local_client(n_workers=2, threads_per_worker=2) as client:
        yield client


def _run(client, plugin):
    import tidegate.distributed as td

    if plugin:
        client.register_plugin(td.Plugin(saturation=1.1))
    client.register_plugin(Moved("read-"), name="moved")
    try:
        assert vorticity_files().compute() == vorticity_files().compute(scheduler="sync")
        if plugin:
            errors = client.run_on_scheduler(lambda dask_scheduler: dask_scheduler._tidegate.errors)
            assert errors == []
        stats = client.run(lambda dask_worker: (dask_worker.plugins["moved"].moved,
                                                dask_worker.plugins["moved"].alive))  # fmt: skip
    finally:
        client.unregister_worker_plugin("moved")
        td.uninstall(client) if plugin else None
    return sum(m for m, _ in stats.values()), max(a for _, a in stats.values())


@pytest.mark.timeout(120)
def test_cluster_reads_meet_their_partner_and_are_not_moved(client):
    """The grids are held on one worker first: counted as partners, they pulled every open
    there and split the pairs; dask then shipped reads to wherever it found room. Now no
    read moves, and reads alive per worker stay within twice the cap plus the running
    vorticities' inputs; dask's queuing moves reads (the test can tell).""" 
    queue_moved, queue_alive = _run(client, plugin=False)
    moved, alive = _run(client, plugin=True)
    print(f"reads moved: {moved} tidegate, {queue_moved} queue; alive per worker {alive} "
          f"tidegate, {queue_alive} queue")
    # Seen: 0 in most runs, 1 now and then (a timing race on the live cluster; 0 in the
    # twin); on main before the fix 16-18, as many as queuing's 14-24.
    assert moved <= 2
    assert queue_moved > 4 * max(moved, 1)
    cap = math.ceil(1.1 * 2)
    assert alive <= 2 * cap + 2 * 2


class Ran(WorkerPlugin):
    """How many tasks with a prefix ran on this worker."""

    name = "ran"

    def __init__(self, prefix):
        self.prefix, self.ran = prefix, 0

    def transition(self, key, start, finish, **kwargs):
        if isinstance(key, str) and key.startswith(self.prefix) and start == "executing" \
                and finish == "memory":  # fmt: skip
            self.ran += 1


@pytest.mark.timeout(120)
def test_cluster_grids_read_by_every_step_of_a_short_series_do_not_idle_a_worker():
    """12 steps: the grids have 12 readers, below MEETING_FANOUT, so they count as partners.
    Held on one worker, they made every root wait for that busy worker while the other,
    1 thread each, stayed idle (2 of 3 bench runs of vorticity-files at 2x1 ran every task
    on one worker; peak RSS 1.24x queuing's). Inputs read by several tasks now rank workers
    but make no root wait (policy.place_root, ``shared``)."""
    distributed = pytest.importorskip("distributed")
    import tidegate.distributed as td

    with dask.config.set(QUIET_MEMORY), distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0"
    ) as cluster, distributed.Client(cluster) as client:  # fmt: skip
        client.register_plugin(td.Plugin(saturation=1.1))
        client.register_plugin(Ran("vort-"), name="ran")
        client.register_plugin(Moved("read-"), name="moved")
        x = vorticity_files(steps=12, size=400_000)
        assert x.compute() == vorticity_files(steps=12, size=400_000).compute(scheduler="sync")
        ran = client.run(lambda dask_worker: dask_worker.plugins["ran"].ran)
        moved = client.run(lambda dask_worker: dask_worker.plugins["moved"].moved)
        errors = client.run_on_scheduler(lambda dask_scheduler: dask_scheduler._tidegate.errors)
    assert errors == []
    print(f"vorticities per worker: {sorted(ran.values())}; reads moved {sum(moved.values())}")
    assert sum(ran.values()) == 12
    # Seen 6 and 6, no read moved (3 runs); on the old code 0 and 12 in 2 of 3 runs, and
    # 6 reads moved in the third. Reads moved (session 21, 28 runs at load 6-15): 0 in 18,
    # 1 in 7, 2 in 2, 4 once (split 5/7: failed a bound of 2); dask's queuing here moves
    # 6-12 (6 runs).
    assert min(ran.values()) >= 3, ran
    assert sum(moved.values()) <= 4  # pairs still meet


# -- backpressure from measured process memory (issue 9, part 3) ---------------------------
def test_process_memory_counts_against_a_budget():
    """Under a budget, the heartbeat's process memory (temporaries, leaks) counts when it
    exceeds the managed bytes; a fraction applies to the worker's own memory_limit."""
    from types import SimpleNamespace

    td = pytest.importorskip("tidegate.distributed")
    plugin = td.Plugin(saturation=1.0, memory_limit=0.5)
    plugin._resync()  # books, no scheduler
    ws = SimpleNamespace(address="w", nthreads=2, memory_limit=10**9, nbytes=10**8,
                         metrics={"memory": 6 * 10**8, "spilled_bytes": {"disk": 0}})  # fmt: skip
    book = plugin._measure(ws)
    assert book.budget == 5 * 10**8
    assert book.held == 6 * 10**8  # the process, not the 100 MB managed
    book.processing = 1  # busy: no progress exception
    assert not plugin.books.may_take_some("w")
    ws.metrics["memory"] = 2 * 10**8  # the next heartbeat: room again
    plugin._measure(ws)
    assert plugin.books.may_take_some("w")
    unlimited = td.Plugin(saturation=1.0)
    unlimited._resync()
    assert unlimited._measure(ws).held == 10**8  # no budget: managed bytes, as before
    # Two workers in one process (processes=False) report the same process memory.
    ws.metrics["memory"], ws.pid, ws.host = 6 * 10**8, 7, "h"
    other = SimpleNamespace(**{**vars(ws), "address": "v"})
    plugin.scheduler = SimpleNamespace(workers={"w": ws, "v": other})
    assert plugin._measure(ws).held == 10**8
    plugin.scheduler = None


def test_twin_poke_decides_each_root_a_bounded_number_of_times():
    """Roots waiting for a partner's busy worker are parked on it and looked at again only
    when it opens: decisions stay a small multiple of the roots, whatever the queue's
    length (re-examining up to 256 waiting roots per slot opening made 7.7 per root here, 65 at 100
    workers, 3x queuing's scheduler CPU)."""
    pytest.importorskip("distributed")
    from tidegate.distributed import admission
    from tidegate.sim import simulate
    from tidegate.sim.workloads import build

    w = build("stack-sum", 400, 1e6, store=False)
    calls = []
    place = Books.place

    def counting(self, *args, **kwargs):
        calls.append(args[0])
        return place(self, *args, **kwargs)

    Books.place = counting
    try:
        r = simulate(w.graph, keys=w.keys, sizes=w.sizes, durations=w.durations, workers=20,
                     threads_per_worker=2, policy="tidegate")
    finally:
        del Books.place  # (place is its mixin's, BooksPlacement: inherited again)
    roots = sum(t.root for t in r.trace.tasks)
    assert roots == 800
    assert admission.WINDOW >= 256  # the queue is far longer than what one poke may look at
    assert len(calls) <= 2 * roots, (len(calls), roots)  # seen: 1.26 per root; 7.7 before


def test_twin_rechunk_add_moves_no_more_than_queuing():
    """rechunk-add's two sides meet at each add. The first side's loads fill their
    worker's in-flight count, so the other side's hint (policy.further_partners) must be
    allowed on workers open for roots, not only on free ones: restricted to free workers
    every add moved one merge (here 20.9 GB against queuing's 16.3; twin 20x4 1,000
    steps: 1.15x queuing's bytes)."""
    pytest.importorskip("distributed")
    from tidegate.sim import simulate
    from tidegate.sim.workloads import build

    w = build("rechunk-add", 120, 190e6, store=False)
    queue, tide = simulate(w.graph, keys=w.keys, sizes=w.sizes, durations=w.durations,
                           workers=6, threads_per_worker=4, policy=["queue", "tidegate"])
    assert tide.bytes_transferred <= queue.bytes_transferred, (
        tide.bytes_transferred / 1e9, queue.bytes_transferred / 1e9)
    assert tide.makespan <= 1.05 * queue.makespan


def test_twin_rechunk_merges_count_until_their_add():
    """rechunk-add in the store form at 200 MB/s: a merge joins slices of two loads of one
    array and waits for the other array's merge. Its loads' slots freed at the split (a
    slice weighs ~nothing), so loads ran on while merges piled up (twin 20x4, 600 steps:
    1.27x queuing's peak). A join of pieces of one array now counts as data in flight
    until its add (policy.joins_pieces): here 0.93 -> 0.79x queuing's peak, 0.82 -> 0.05x
    its bytes moved, 37.0 -> 34.9 s. Since the twin times an edge block's store by its own
    bytes (cluster18; they were timed as full blocks, a third of the stores), 0.87x, and
    1.10x with joins_pieces off."""
    pytest.importorskip("distributed")
    from tidegate.sim import simulate
    from tidegate.sim.workloads import build

    model = build("rechunk-add", 120, 190e6, store=True).model()
    queue, tide = simulate(model, workers=6, threads_per_worker=4, bandwidth="200MB/s",
                           policy=["queue", "tidegate"])
    ratio = max(tide.peak_memory_per_worker) / max(queue.peak_memory_per_worker)
    assert ratio <= 0.95, ratio
    assert tide.bytes_transferred <= 0.25 * queue.bytes_transferred
    assert tide.makespan <= queue.makespan


def test_a_meeting_whose_output_meets_again_commits_its_worker():
    """policy.meets_further: rechunk-add's merge of u's pieces is added to v's merge, a
    tree reduction's combine is combined again; vorticity's pair ends in its store."""
    deps = {"u0": [], "u1": [], "v0": [], "v1": [], "mu": ["u0", "u1"], "mv": ["v0", "v1"],
            "add": ["mu", "mv"]}
    for t in range(3):
        deps[f"a{t}"], deps[f"b{t}"] = [], []
        deps[f"vort{t}"] = [f"a{t}", f"b{t}"]
    dependents = _dependents(deps)

    def plan(k):
        return meeting_plan(k, dependents.__getitem__, deps.__getitem__, group=_prefix)

    assert plan("u0").further and plan("v1").further
    assert not plan("a0").further
    assert plan("u0").pair  # the add joins two sides: policy.passes_for_further applies
    tree = {f"x{t}": [] for t in range(16)}
    tree.update({f"c{g}": [f"x{t}" for t in range(4 * g, 4 * g + 4)] for g in range(4)})
    tree["top"] = [f"c{g}" for g in range(4)]
    up = _dependents(tree)
    tplan = meeting_plan("x0", up.__getitem__, tree.__getitem__, group=_prefix)
    assert tplan.further and not tplan.pair  # a tree reduction's next level: 4 partials
    tree["top"] = ["c0", "c1"]  # its remainder: two partials of one group
    up = _dependents(tree)
    tplan = meeting_plan("x0", up.__getitem__, tree.__getitem__, group=_prefix)
    assert tplan.further and not tplan.pair
    assert not meeting_plan("u0", dependents.__getitem__, deps.__getitem__).pair  # no group
    # a store after the pair's task (one input) is no further meeting either
    deps["store0"] = ["vort0"]
    dependents = _dependents(deps)
    assert not plan("a0").further
    # Counted in full while every thread is busy; one fewer where a thread is free.
    assert committed(3, 4, 4) == 3 and committed(3, 3, 4) == 2
    assert committed(1, 1, 2) == 0 and committed(0, 0, 2) == 0
    assert committed(1, 1, 1) == 0 and committed(3, 1, 1) == 2  # one thread: one fewer


def _prefix(k):
    """A toy task group: the key's letters (mu, mv: two arrays' merges; c0, c1: one)."""
    return k.rstrip("0123456789")


@pytest.mark.parametrize("name, steps, workers, peak, moved", [
    # (base 8dc497b: 0.78x queuing's peak, 0.052x its bytes moved; now 0.61x, 0)
    ("rechunk-add", 120, 20, 0.7, 0.01),
    # (base: 0.95x; now 0.82x; bytes 0.33 -> 0.38x queuing's. With a further meeting's
    # hint passing the count again, hooks._place: 0.86x. Over ten namings of the keys
    # (_namings) now 18-19 chunks against queuing's 21-22, 0.818-0.905x, base 20-21,
    # 0.909-1.0x: no bound on one naming tells them apart; on five summed now 0.860x, base
    # 0.981x)
    ("anomaly", 200, 20, 0.91, 0.5),
])
def test_twin_a_meeting_opens_only_where_its_roots_fit(name, steps, workers, peak, moved):
    """A root opening a meeting whose output meets further data commits its worker to the
    roots the meeting lacks (books.place's commits); opened at cap - 1, its partners then
    passed the count by completing it: rechunk-add 9-10 roots in flight on a 4-thread
    worker (cap 5), anomaly's groups of 4 stacked on one worker (a further meeting's hint
    passed the count too). 1,000 steps, 1 GB/s: rechunk-add 0.89 -> 0.66x queuing's peak
    at 20x4, 0.84 -> 0.61 at 100x4; anomaly 100x4 0.92 -> 0.79."""
    pytest.importorskip("distributed")
    from _namings import NAMINGS, renamed

    from tidegate.sim import simulate
    from tidegate.sim.model import build_model
    from tidegate.sim.workloads import build

    w = build(name, steps, 190e6, store=False)
    sizes = w.sizes
    if name == "anomaly":
        # The partial means as the twin sized them until session 25 (one block; dask's are
        # sum + count, two: sim/model._arrays_returned). This checks the commitment rule
        # it was written for; at the real size see the next test.
        sizes = {**(sizes or {}), "mean_combine-partial": 190_000_000}
    model = build_model(w.graph, w.keys, sizes=sizes, durations=w.durations)
    peaks = {"queue": 0, "tidegate": 0}
    for salt in NAMINGS:  # peaks summed over five namings of the keys
        queue, tide = simulate(renamed(model, salt), workers=workers, threads_per_worker=4,
                               bandwidth="1GB/s", policy=["queue", "tidegate"],
                               record_memory=False)  # fmt: skip
        assert tide.makespan <= 1.05 * queue.makespan, salt
        assert tide.bytes_transferred <= moved * queue.bytes_transferred, salt
        peaks["queue"] += max(queue.peak_memory_per_worker)
        peaks["tidegate"] += max(tide.peak_memory_per_worker)
    ratio = peaks["tidegate"] / peaks["queue"]
    assert ratio <= peak, ratio


def test_twin_anomaly_with_real_partials_peaks_no_higher_than_queuing():
    """The anomaly (200 steps of 190 MB, 20 x 4, 1 GB/s) with dask's partial means at
    their real size (sum + count: 380 MB): tidegate's busiest worker held 12 loads, 3 of
    its own partials, 2 copied ones and 4 chunk-means, 4.94 GB against queuing's 4.56
    (1.08x): it opened its third group while the level-2 combine it was to run still
    waited for partials made elsewhere. Now (policy.awaits_combine: no new group there
    while the combine's inputs are all on their way) 4.37 GB, 0.96x, in 19.5 s against
    queuing's 21.3; over 5 namings 0.885-0.958x (lvl27-findings.txt)."""
    pytest.importorskip("distributed")
    from tidegate.sim import simulate
    from tidegate.sim.workloads import build

    w = build("anomaly", 200, 190e6, store=False)
    queue, tide = simulate(w.graph, keys=w.keys, sizes=w.sizes, durations=w.durations,
                           workers=20, threads_per_worker=4, bandwidth="1GB/s",
                           policy=["queue", "tidegate"])
    assert max(tide.peak_memory_per_worker) <= max(queue.peak_memory_per_worker)
    assert tide.makespan <= 1.05 * queue.makespan


def test_twin_a_step_pairs_sides_load_one_after_the_other():
    """rechunk-add 20 x 4, 200 steps of 190 MB: a step pair's v loads pass the in-flight
    count on their u loads' worker only once no root processes there
    (policy.passes_for_further), an edge split leaves its load in flight for the halves
    still to cut (policy.read_on) and a merge starting frees none of its pieces' slots
    (books.on_consuming). Before, a pair's four loads took every thread ahead of the
    previous pair's adds, beside its four merges: 11 chunks on a worker (2.09 GB, 0.667x
    queuing's peak); now at most 10 (1.90 GB, 0.606x). Over five namings of the keys
    (_namings): tidegate 10 chunks in each (the code before 11 in each), queuing's peak
    15.5-18 chunks by naming (one naming in ten read 0.645x, past the 0.62 once judged on
    one), so the share of queuing's is judged on the sum (now 0.617x, before 0.679x)."""
    pytest.importorskip("distributed")
    from _namings import NAMINGS, renamed

    from tidegate.sim import simulate
    from tidegate.sim.model import build_model
    from tidegate.sim.workloads import build

    w = build("rechunk-add", 200, 190e6, store=False)
    model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
    chunk = max(model.sizes.values())
    peaks = {"queue": 0, "tidegate": 0}
    for salt in NAMINGS:
        queue, tide = simulate(renamed(model, salt), workers=20, threads_per_worker=4,
                               bandwidth="1GB/s", policy=["queue", "tidegate"],
                               record_memory=False)  # fmt: skip
        assert max(tide.peak_memory_per_worker) <= 10.01 * chunk, \
            (salt, max(tide.peak_memory_per_worker) / chunk)  # fmt: skip
        assert tide.makespan <= 1.05 * queue.makespan, salt
        assert tide.bytes_transferred <= queue.bytes_transferred, salt
        peaks["queue"] += max(queue.peak_memory_per_worker)
        peaks["tidegate"] += max(tide.peak_memory_per_worker)
    assert peaks["tidegate"] <= 0.65 * peaks["queue"], peaks["tidegate"] / peaks["queue"]


@pytest.mark.parametrize("name", ["slice-add", "stack-sum"])
def test_twin_a_worker_opens_no_more_meetings_than_its_slots_hold(name):
    """Each step's u and v loads meet. The u loads' store handle finishes first, so every
    worker's slots first fill with u loads of five different steps; their v loads then
    came past the in-flight count (they complete a consumer): 11 chunks held per worker at
    startup against 7 afterwards, 0.65-0.69x queuing's peak. A u load now reserves its v
    (books: roots owed): 8 chunks, 0.47-0.50x, in the same time."""
    pytest.importorskip("distributed")
    from tidegate.sim import simulate
    from tidegate.sim.workloads import build

    w = build(name, 200, 190e6, store=False)
    queue, tide = simulate(w.graph, keys=w.keys, sizes=w.sizes, durations=w.durations,
                           workers=20, threads_per_worker=4, policy=["queue", "tidegate"])
    ratio = max(tide.peak_memory_per_worker) / max(queue.peak_memory_per_worker)
    assert ratio <= 0.6, ratio
    assert tide.makespan <= 1.05 * queue.makespan
    assert tide.bytes_transferred <= queue.bytes_transferred


def test_a_store_handle_read_by_a_short_series_is_no_partner():
    """A store handle (no inputs, read by SHARED_FANOUT or more loads) makes its readers
    roots (policy.is_root); with fewer readers than MEETING_FANOUT (12 chunks) the walk up
    from a neighbour's chain counted the handle's worker as a partner of every load, and
    the zarr anomaly at 2x1 ran every load on that worker."""
    deps: dict = {"h": []}
    for t in range(12):
        deps[f"load-{t}"] = ["h"]
        deps[f"chunk-{t}"] = [f"load-{t}"]
    for g in range(3):
        deps[f"combine-{g}"] = [f"chunk-{t}" for t in range(4 * g, 4 * g + 4)]
    dependents = _dependents(deps)
    where = {"h": ["w0"]}
    lacks: set = set()
    scores = meeting_partners("load-1", dependents.__getitem__, deps.__getitem__,
                              lambda t: where.get(t, []), lacks=lacks)  # fmt: skip
    assert scores == {}
    assert lacks == {"load-0", "load-2", "load-3"}  # its combine's other loads, unplaced
    where["load-2"] = ["w1"]
    scores = meeting_partners("load-1", dependents.__getitem__, deps.__getitem__,
                              lambda t: where.get(t, []))  # fmt: skip
    assert scores == {"w1": 1}


@pytest.mark.parametrize("name,workers", [
    ("anomaly", 2), ("stack-sum", 2), ("slice-add", 2), ("stack-sum", 4), ("slice-add", 4),
])  # fmt: skip
def test_twin_a_short_series_on_few_workers_is_no_worse_than_queuing(name, workers):
    """The LocalCluster benches' size: 12 chunks of 32 MB, 1 thread per worker. Before:
    the store handle (12 readers) was every load's partner, so loads waited for its worker
    (anomaly 2x1: peak 1.46x, time 1.55x queuing's; stack-sum 4x1: time 3.3x); an idle
    worker waited while the last roots all waited for a partner's busy worker; and the
    mean (read by 12 subtractions) pulled them off their own chunk's worker."""
    pytest.importorskip("distributed")
    from tidegate.sim import simulate
    from tidegate.sim.workloads import build

    w = build(name, 12, 32e6, store=False)
    queue, tide = simulate(w.graph, keys=w.keys, sizes=w.sizes, durations=w.durations,
                           workers=workers, threads_per_worker=1, policy=["queue", "tidegate"])
    assert max(tide.peak_memory_per_worker) <= max(queue.peak_memory_per_worker)
    assert tide.makespan <= 1.05 * queue.makespan, tide.makespan / queue.makespan
    assert tide.bytes_transferred <= queue.bytes_transferred


def _twin_vorticity_trace(monkeypatch, sole):
    """A twin vorticity run's full trace and how often dask's own consumer placement was
    asked; ``sole=False``: the plugin always asks it (the code before sole_holder)."""
    pytest.importorskip("distributed")
    from distributed.scheduler import SchedulerState

    from tidegate.distributed import consumers

    asked = []
    dask_decide = SchedulerState.decide_worker_non_rootish

    def counting(self, ts):
        asked.append(ts.key)
        return dask_decide(self, ts)

    monkeypatch.setattr(SchedulerState, "decide_worker_non_rootish", counting)
    if not sole:
        monkeypatch.setattr(consumers, "sole_holder", lambda local: None)
    trace = twin_vorticity_trace()
    monkeypatch.undo()
    return len(asked), trace


def test_a_consumer_whose_inputs_one_worker_holds_most_of_skips_dasks_objective(monkeypatch):
    """Where one worker holds more of a consumer's own inputs than any other, place_consumer
    sends it there whatever dask chooses, so dask's objective over every worker holding a
    grid is not asked for, and the schedule is exactly the same."""
    from tidegate.policy import sole_holder

    assert sole_holder({}) is None
    assert sole_holder({"a": 5, "b": 5}) is None  # a tie: dask's choice among equals
    assert sole_holder({"a": 5, "b": 9, "c": 9}) is None
    assert sole_holder({"a": 5, "b": 9, "c": 1}) == "b"
    fast, trace = _twin_vorticity_trace(monkeypatch, sole=True)
    slow, slow_trace = _twin_vorticity_trace(monkeypatch, sole=False)
    assert trace == slow_trace  # the same starts, workers, times and transfers
    assert slow >= 200  # every step's store asked dask before
    assert fast < slow / 4, (fast, slow)


def test_broadcast_pairs_one_per_sender_is_the_heap_rule():
    """The one-copy-per-holder shortcut (idle holders in order, one receiver each) pairs
    exactly as the heap does."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from tidegate.policy import broadcast_pairs, pairs_by_heap

    @settings(max_examples=300, deadline=None)
    @given(st.dictionaries(st.text("abcdef", min_size=1, max_size=2), st.integers(0, 3)),
           st.lists(st.text("wxyz", min_size=1, max_size=2), unique=True),
           st.integers(-1, 8))
    def check(sending, wanting, most):
        assert broadcast_pairs(sending, wanting, most, 1) == \
            pairs_by_heap(sending, wanting, most, 1)  # fmt: skip

    check()


def _anomaly_deps(groups=3, per=4, subtract=True):
    """load-t -> chunk-t -> combine-g -> agg (a tree reduction of 12 loads in groups of 4);
    with ``subtract``, sub-t reads load-t and agg (``a - a.mean(axis=0)``)."""
    deps: dict = {}
    for t in range(groups * per):
        deps[f"load-{t}"] = []
        deps[f"chunk-{t}"] = [f"load-{t}"]
    for g in range(groups):
        deps[f"combine-{g}"] = [f"chunk-{t}" for t in range(per * g, per * g + per)]
    deps["agg"] = [f"combine-{g}" for g in range(groups)]
    if subtract:
        for t in range(groups * per):
            deps[f"sub-{t}"] = [f"load-{t}", "agg"]
    return deps


def test_a_load_read_beside_its_own_mean_waits_for_its_reduction():
    """policy.waits_for_own_reduction: a load that a task reads again beside a value
    reduced from it (the mean its chunk-mean goes into) is held until that reduction is
    whole; its answer is the reduction's first task. A plain reduction, data read beside
    another array's mean, and a pair meeting in one task are not."""
    from tidegate.policy import reduced_enough, waits_for_own_reduction

    def ask(deps, task):
        dependents = _dependents(deps)
        return waits_for_own_reduction(task, dependents.__getitem__, deps.__getitem__)

    anomaly = _anomaly_deps()
    assert ask(anomaly, "load-5") == "chunk-5"
    assert ask(_anomaly_deps(subtract=False), "load-5") is None  # a mean alone (stack-sum)
    other = _anomaly_deps(subtract=False)  # x - y.mean(axis=0): y's mean, not x's own
    for t in range(12):
        other[f"x-{t}"] = []
        other[f"sub-{t}"] = [f"x-{t}", "agg"]
    assert ask(other, "x-5") is None
    deps, _ = _graph(4)  # vorticity: u and v meet in one task that also reads a grid
    assert ask(deps, "u-1") is None
    # Split from its meeting only where the chunk-mean keeps at most half the load: the
    # LocalCluster's 4 steps per chunk (8 of 32 MB), not one step per chunk (the twin's
    # seed anomaly) nor sizes unknown.
    assert reduced_enough(8e6, 32e6)
    assert not reduced_enough(32e6, 32e6)
    assert not reduced_enough(math.nan, 32e6)
    assert not reduced_enough(8e6, math.nan)


def test_own_reduction_paths_kept_give_the_walks_answers():
    """policy.waits_for_own_reduction with ``chains`` (the plugin's kept chains): each path
    past its first step is walked once and kept, under ``(id(u), depth)`` (a group's
    chunk-means reach one combine: 3 paths for 12 loads in groups of 4; none for a path of
    one step), and every answer
    is the walk's, at every depth (the mean 2 steps up from a chunk-mean: found from depth
    2 on), for loads, their chunk-means, the means read beside another array's, and a pair
    meeting in one task (cpu34a-findings.txt)."""
    from tidegate.policy import waits_for_own_reduction

    cases = [_anomaly_deps(), _anomaly_deps(subtract=False), _graph(4)[0]]
    other = _anomaly_deps(subtract=False)
    for t in range(12):
        other[f"x-{t}"] = []
        other[f"sub-{t}"] = [f"x-{t}", "agg"]
    cases.append(other)
    for deps in cases:
        dependents = _dependents(deps)
        for depth in range(0, 8):
            chains: dict = {}
            for task in deps:
                fresh = waits_for_own_reduction(task, dependents.__getitem__,
                                                deps.__getitem__, depth)
                kept = waits_for_own_reduction(task, dependents.__getitem__,
                                               deps.__getitem__, depth, chains=chains)
                assert kept == fresh, (task, depth, kept, fresh)
                if task == "load-5" and deps is cases[0]:
                    assert (fresh == "chunk-5") == (depth >= 2), depth
            if deps is cases[0] and depth >= 2:
                assert len(chains) == 3, (depth, chains)  # one per combine
                assert all(k == (id(v[0]), depth) for k, v in chains.items())
            elif deps is cases[0]:
                assert not chains, depth  # (a path of one step: nothing kept)


def test_own_reduction_search_stays_linear_on_a_widely_read_root():
    """A root read by many tasks that each meet another input (a grid every task reads,
    each reader's output reduced beside it) is answered by walking each reader's path
    once: the pairwise search made 10^6 steps for 1,000 readers (the twin's weighted
    scheduler CPU per task at 100 workers 1.2x -> 3.9x queuing's). Same answers as the
    pairwise search, with the number of dependents looked up counted."""
    from tidegate.policy import waits_for_own_reduction

    n = 1000
    deps = {"grid": []}
    for t in range(n):
        deps[f"x-{t}"] = []
        deps[f"w-{t}"] = ["grid", f"x-{t}"]  # every reader meets another input
    deps["total"] = [f"w-{t}" for t in range(n)]
    dependents = _dependents(deps)
    looked = [0]

    def count(task):
        looked[0] += 1
        return dependents[task]

    assert waits_for_own_reduction("grid", count, deps.__getitem__) is None
    assert looked[0] < 10 * n
    # the grid read again beside a mean of the readers' outputs: found through the readers
    deps["mean"] = [f"w-{t}" for t in range(n)]
    deps["total"] = []
    for t in range(n):
        deps[f"sub-{t}"] = ["grid", "mean"]
    dependents = _dependents(deps)
    looked[0] = 0
    assert waits_for_own_reduction("grid", count, deps.__getitem__) == "w-0"
    assert looked[0] < 10 * n


def _twin_anomaly_slow_group(slow: float):
    """The twin's anomaly of 12 loads of 32 MB on 2 workers x 1 thread at 200 MB/s, its
    chunk-means and partial means sized as the LocalCluster measures them (8 MB and 16 MB:
    4 time steps per chunk), the loads of chunks 8-11 (the reduction group the second
    worker starts with) ``slow`` times their modelled duration: a worker running behind,
    as one does on a loaded machine."""
    from tidegate.sim import simulate
    from tidegate.sim.model import build_model
    from tidegate.sim.workloads import build

    w = build("anomaly", 12, 32e6, store=False)
    sizes = {**(w.sizes or {}), "mean_chunk": 8000328, "mean_combine-partial": 16000320}
    model = build_model(w.graph, w.keys, sizes=sizes, durations=w.durations)
    for k in model.durations:
        if type(k) is tuple and k[0].startswith("open") and k[1] >= 8:
            model.durations[k] *= slow
    return simulate(model, workers=2, threads_per_worker=1, policy=["queue", "tidegate"],
                    bandwidth=200e6)  # fmt: skip


def test_twin_the_last_reduction_group_of_an_anomaly_is_split_not_piled():
    """The last group's first load opened its combine on the faster worker; its other
    loads waited for that busy worker while the other one had a root slot free, and all
    12 loads are held until the mean is whole: 7 of 12 loads on one worker, peak 304 MB
    against queuing's 272 (LocalCluster 2x1: 8 of 12 in 22% of 54 runs). A root waiting
    for its own reduction now starts on a busy worker open for roots once every queued
    root waits for a partner's worker (hooks._split)."""
    pytest.importorskip("distributed")
    queue, tide = _twin_anomaly_slow_group(1.5)
    loads = [sum(1 for t in tide.trace.tasks if t.group.startswith("open-") and t.worker == w)
             for w in sorted({t.worker for t in tide.trace.tasks})]  # fmt: skip
    assert sorted(loads) == [6, 6], loads
    assert max(tide.peak_memory_per_worker) <= max(queue.peak_memory_per_worker)
    assert tide.makespan <= 1.05 * queue.makespan
    assert tide.bytes_transferred <= queue.bytes_transferred


def _loads_per_worker(result) -> list:
    return sorted((sum(1 for t in result.trace.tasks
                       if t.group.startswith("open-") and t.worker == w)
                   for w in {t.worker for t in result.trace.tasks}), reverse=True)  # fmt: skip


def test_a_running_reduction_counts_as_done_in_the_held_measure():
    """policy.after_reduction: what places_by_held's measure takes off a worker for a task
    processing there: the inputs only it needs, less its output, for a reduction only
    (tests/test_small_cluster_twin.py has the twin case)."""
    from tidegate.policy import after_reduction, places_by_held

    assert after_reduction(32e6, 16e6) == 16e6  # 4 chunk-means of 8 MB into 16 MB
    assert after_reduction(32e6, float("nan")) == 0.0  # output not known yet: no credit
    assert after_reduction(8e6, 16e6) == 0.0  # grows: no credit (nor a charge)
    assert after_reduction(0.0, 16e6) == 0.0
    # the seed anomaly's case: 208 against 160 + 32 held, 16 of it going: now placed there
    assert not places_by_held(208e6, 192e6, 32e6)
    assert places_by_held(208e6, 192e6 - after_reduction(32e6, 16e6), 32e6)


@pytest.mark.parametrize("slow", [2.0, 3.0])
def test_twin_a_fast_worker_does_not_pile_the_last_reduction_group(slow):
    """With one reduction group's loads 2-3x slower, the faster worker finished its own
    group and opened the last one, whose loads then waited for it (their partners' worker)
    while the other worker held fewer: 8 of 12 loads there, peak 336 MB against queuing's
    272 (LocalCluster 2x1: 8/4 splits, 305 MiB against 244). A load waiting for its own
    reduction now goes to the worker holding least when its partners' worker holds more
    than half a load more (policy.places_by_held, hooks._by_held), waiting for it if it
    may take no root now."""
    pytest.importorskip("distributed")
    from tidegate.policy import places_by_held

    assert places_by_held(160e6, 112e6, 32e6)  # 1.5 loads more: the one holding least
    assert not places_by_held(144e6, 128e6, 32e6)  # half a load: beside its partners
    queue, tide = _twin_anomaly_slow_group(slow)
    # (2x: 7 / 5 since slow41, the loads by pace below SLOWER: policy.paced_keeps)
    assert _loads_per_worker(tide) == ([7, 5] if slow == 2.0 else [6, 6])
    assert max(tide.peak_memory_per_worker) <= max(queue.peak_memory_per_worker)
    assert tide.makespan <= 1.05 * queue.makespan
    assert tide.bytes_transferred <= queue.bytes_transferred


def test_twin_a_slow_worker_takes_its_share_of_the_anomalys_loads():
    """Every load of the second worker 2x slower (a lagging process): queuing gives the
    fast worker 7 of 12 loads (280 MB), main tidegate 8 (336 MB); placed by held bytes,
    each worker holds 6 (272 MB), the fast one waiting for the slow one's slot. Since
    slow41 (policy.paced_keeps, PACE_HELD): 7 / 5 by pace, 264 MB, the stores by the
    soonest end (PACE_CONSUMERS); never queuing's 8 / 4 beside a 2x slower worker."""
    pytest.importorskip("distributed")
    import importlib.util
    import pathlib

    path = pathlib.Path(__file__).parents[1] / "bench" / "twin_slow_worker.py"
    spec = importlib.util.spec_from_file_location("twin_slow_worker", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    out = bench.run(2.0, mode="worker")
    assert out["tidegate"]["loads_per_worker"] == [7, 5]
    assert out["tidegate"]["peak"] <= out["queue"]["peak"]
    assert out["tidegate"]["bytes_transferred"] <= out["queue"]["bytes_transferred"]


def test_clearly_slower_needs_two_slow_roots_against_the_others_longest():
    """policy.clearly_slower: both of the worker's last two roots took more than SLOWER
    times the longer of the other's last two; one slow load (zarr's import in a process's
    first load) or a single sample is not enough; nothing known is not slower."""
    from tidegate.policy import SLOWER, clearly_slower

    nan = float("nan")
    assert clearly_slower((0.48, 0.48), (0.16, 0.16))  # 3x: slower
    assert not clearly_slower((0.48, 0.10), (0.16, 0.16))  # one slow load
    assert not clearly_slower((0.48, nan), (0.16, 0.16))  # one sample
    assert not clearly_slower((0.48, 0.48), (0.16, nan))
    assert not clearly_slower((0.48, 0.48), (0.16, 0.20))  # 2.4x the other's longest
    assert not clearly_slower((SLOWER * 0.1, SLOWER * 0.1), (0.1, 0.1))  # not more than
    assert not clearly_slower((0.0, 0.0), (0.0, 0.0))  # tiny roots
    assert not clearly_slower(None, (0.1, 0.1))
    assert not clearly_slower((0.5, 0.5), None)


def _twin_slow_worker_bench():
    import importlib.util
    import pathlib

    path = pathlib.Path(__file__).parents[1] / "bench" / "twin_slow_worker.py"
    spec = importlib.util.spec_from_file_location("twin_slow_worker", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench


def _slow_worker_spans(bench, slow, check=None):
    """Summed makespans of queuing and tidegate over the tests' namings (_namings), one
    worker's loads ``slow`` times slower (bench/twin_slow_worker.py --mode worker);
    ``check(salt, tidegate, queue)`` asked of each run."""
    from _namings import NAMINGS, renamed

    simulate = bench.simulate
    spans = {"queue": 0.0, "tidegate": 0.0}
    try:
        for salt in NAMINGS:
            bench.simulate = lambda model, salt=salt, **kw: simulate(renamed(model, salt), **kw)
            out = bench.run(slow, mode="worker")
            if check is not None:
                check(salt, out["tidegate"], out["queue"])
            spans["queue"] += out["queue"]["makespan"]
            spans["tidegate"] += out["tidegate"]["makespan"]
    finally:
        bench.simulate = simulate
    return spans["tidegate"] / spans["queue"]


@pytest.mark.parametrize("slow", [3.0, 4.0])
def test_twin_a_fast_worker_does_not_wait_for_a_clearly_slower_one(slow):
    """Every load of the second worker 3-4x slower: placed by held bytes, the fast worker
    waited for the slow one's slot at every load (6/6, 5.62 s at 3x against queuing's 4.77
    and 9/3; 6.58 s at 4x against 5.12). Both of the slow worker's last two loads took
    more than 2.5x the fast one's (policy.clearly_slower, hooks._by_held / _heavier): the
    load is placed as any root, 8/4, peak below queuing's. Over five namings of the keys
    (_namings): tidegate's split and peak are the same in each, queuing's time moves by
    naming (3x: 4.52-5.13 s), so the time is judged on the sum. Session 37's code: 1.119x
    (3x) and 1.108x (4x), the code before 017dafa 1.23x and 1.27x. Since slow38: dask's
    stealing may move a store off the worker that loaded more (policy.steals_beside_slower)
    and, at 4x, the fast worker runs the group's last load (policy.leaves_slower, 9/3):
    1.072x and 1.057x."""
    pytest.importorskip("distributed")
    bench = _twin_slow_worker_bench()
    split = {3.0: [8, 4], 4.0: [9, 3]}[slow]

    def check(salt, tide, queue):
        assert tide["loads_per_worker"] == split, salt
        assert tide["peak"] < queue["peak"], salt
        assert tide["bytes_transferred"] < queue["bytes_transferred"], salt

    ratio = _slow_worker_spans(bench, slow, check)
    assert ratio <= 1.09, ratio


def test_twin_stealing_moves_a_store_off_the_worker_that_loaded_more(monkeypatch):
    """policy.steals_beside_slower (SLOW_STEAL): once a worker was found clearly slower,
    keeps_its_worker no longer keeps a store beside its load. One worker's loads 3x
    slower: 8 loads / 4, so 8 stores / 4 where each ran beside its load while the other
    worker idled; stolen as queuing's are, summed over the namings 1.119x -> 1.072x
    queuing's makespan, the same 8/4 split and peak."""
    pytest.importorskip("distributed")
    from tidegate import policy

    bench = _twin_slow_worker_bench()
    peaks = []
    # (slow38's rule alone: slow44's tail take, its stores by the soonest end, makes 3x
    # 1.017x without stealing, 1.057x with: slow44-findings.txt)
    monkeypatch.setattr(policy, "IDLE_TAIL", 0)
    monkeypatch.setattr(policy, "SLOW_STEAL", 0)
    before = _slow_worker_spans(bench, 3.0, lambda s, t, q: peaks.append(t["peak"]))
    monkeypatch.setattr(policy, "SLOW_STEAL", 1)
    after = _slow_worker_spans(bench, 3.0, lambda s, t, q: peaks.append(t["peak"]))
    assert after < before - 0.03, (before, after)
    assert len(set(peaks)) == 1  # (the loads' split and peak are untouched)


def test_leaves_slower_at_the_tail_only():
    """policy.leaves_slower: bit 2 sends a root off a clearly slower worker only where the
    fast worker would run it and every root left (and its own in flight) sooner than the
    slow worker runs this one; bit 1 whenever the slow worker's threads are full; 0 never."""
    from tidegate import policy
    from tidegate.policy import leaves_slower

    nan = float("nan")
    slow, fast = (0.64, 0.64), (0.16, 0.16)
    saved = policy.OFF_SLOWER
    try:
        policy.OFF_SLOWER = 2
        assert leaves_slower(0, 1, 1, 1, slow, fast)  # 2 x 0.16 < 0.64: the tail
        assert leaves_slower(1, 1, 2, 1, slow, fast)  # (its threads full: no matter)
        assert not leaves_slower(0, 1, 3, 1, slow, fast)  # 4 x 0.16 = 0.64: its share
        assert not leaves_slower(1, 1, 6, 2, slow, fast)
        assert not leaves_slower(0, 1, 1, 0, (0.64, nan), fast)  # paces not known
        assert not leaves_slower(0, 1, 1, 0, None, fast)
        policy.OFF_SLOWER = 1
        assert leaves_slower(1, 1, 6, 2, slow, fast)
        assert not leaves_slower(0, 1, 1, 0, slow, fast)
        policy.OFF_SLOWER = 0
        assert not leaves_slower(1, 1, 1, 0, slow, fast)
    finally:
        policy.OFF_SLOWER = saved


def test_lags_needs_a_slow_root_group_and_slow_readers():
    """policy.lags: a worker lags throughout when both of its last two loads and both of
    its last two readers took more than LAG times the other's longer; slow loads alone
    (twin_slow_worker --mode worker) or one slow sample are not lagging; its measure is
    the smaller ratio. lags_clearly: more than LAG_ROOTS, the other not lagging."""
    from tidegate.policy import LAG, LAG_ROOTS, lags, lags_clearly

    nan = float("nan")
    fast, rfast = (0.16, 0.16), (0.033, 0.033)
    assert lags((0.48, 0.48), fast, (0.099, 0.099), rfast) == pytest.approx(3.0)
    assert lags((0.48, 0.48), fast, (0.066, 0.066), rfast) == pytest.approx(2.0)
    assert not lags((0.48, 0.48), fast, rfast, rfast)  # slow loads, readers at full speed
    assert not lags(fast, fast, (0.099, 0.099), rfast)
    assert not lags((0.48, nan), fast, (0.099, 0.099), rfast)  # one sample
    assert not lags((0.48, 0.48), fast, (0.099, 0.01), rfast)  # one slow reader
    assert not lags(None, fast, (0.099, 0.099), rfast)
    assert not lags((0.48, 0.48), (0.0, 0.0), (0.099, 0.099), rfast)  # (a coarse clock's 0)
    assert not lags((0.48, 0.48), fast, (0.099, 0.099), (0.0, 0.0))
    assert not lags((LAG * 0.16,) * 2, fast, (LAG * 0.033,) * 2, rfast)  # not more than
    assert lags_clearly(LAG_ROOTS + 0.1) and not lags_clearly(LAG_ROOTS)
    assert not lags_clearly(LAG_ROOTS + 0.1, 1.5)  # the other lags too
    assert not lags_clearly(0.0)


def test_equal_workers_lagging_in_two_samples_only_do_not_lag():
    """lag40: on a LocalCluster two samples a worker scatter as much as a lag (equal
    workers found lagging 1.45-2.42x in 3 of 6 quiet runs, lead39-findings.txt). A lag
    must persist over each worker's last LAG_SAMPLES (policy.lags_persist: each side's
    most extreme LAG_TRIM dropped): equal workers whose last two readers of one happened
    slow do not lag; a worker slower throughout with one fast outlier still does; with
    fewer samples the pairs' answer stands (the twin's); LAG_SAMPLES 2 (the default) is
    main's."""
    from types import SimpleNamespace

    from tidegate import policy
    from tidegate.distributed import Plugin
    from tidegate.policy import lags_persist

    b_roots, b_reads = (0.2, 0.19, 0.6, 0.18), (0.012, 0.015, 0.013, 0.014)
    saved = policy.LAG_SAMPLES
    policy.LAG_SAMPLES = 4
    try:
        assert not lags_persist((0.26, 0.27, 0.2, 0.19), b_roots,
                                (0.021, 0.02, 0.015, 0.016), b_reads)  # fmt: skip
        assert lags_persist((0.5, 0.45, 0.48, 0.2), b_roots, (0.08, 0.03, 0.031, 0.029),
                            b_reads)  # fmt: skip
        assert lags_persist((0.26, 0.27), b_roots[:2], (0.021, 0.02), b_reads[:2])  # (pairs)
    finally:
        policy.LAG_SAMPLES = saved

    def found(a_roots, a_reads, samples=4) -> float:
        saved = policy.LAG_SAMPLES
        policy.LAG_SAMPLES = samples
        try:
            stub = SimpleNamespace(
                _lag_ref={}, _lagging={}, _slow_groups=set(),
                _pace={"load": {"a": a_roots[:2], "b": b_roots[:2]}},  # (the pairs)
                _lag_roots={"load": {"a": a_roots, "b": b_roots}})
            read = ("load", {})
            worst = 0.0
            for worker, seconds in [("b", x) for x in reversed(b_reads)] \
                    + [("a", x) for x in reversed(a_reads)]:  # fmt: skip
                ss = [{"action": "compute", "start": 0.0, "stop": seconds}]
                Plugin._lag_seen(stub, "mean_chunk", read, worker, ss)
                worst = max([worst, *stub._lagging.values()])
            return worst
        finally:
            policy.LAG_SAMPLES = saved

    noisy = ((0.26, 0.27, 0.2, 0.19), (0.021, 0.02, 0.015, 0.016))
    assert found(*noisy, samples=2) == pytest.approx(0.26 / 0.2)  # main's: a lag
    assert not found(*noisy)
    slow = ((0.5, 0.45, 0.48, 0.2), (0.08, 0.03, 0.031, 0.029))
    assert found(*slow) == pytest.approx(min(0.45 / 0.2, 0.03 / 0.015))


def test_ends_sooner_elsewhere_stretches_work_by_lag_not_copies():
    """policy.ends_sooner_elsewhere: each worker's queued work and the task stretched by
    its lag, the copies not; LAG_CONSUMERS 0: never."""
    from tidegate import policy
    from tidegate.policy import ends_sooner_elsewhere

    # 2x slower, nothing queued: 0.7 there against 0.35 + a 0.16 copy here
    assert ends_sooner_elsewhere(0.0, 2.0, 0.0, 1.0, 0.35, 0.0, 0.16)
    # the fast worker has 4 stores queued: 4 x 0.35 + 0.35 + 0.16 > 2 x 0.35
    assert not ends_sooner_elsewhere(0.0, 2.0, 1.4, 1.0, 0.35, 0.0, 0.16)
    assert not ends_sooner_elsewhere(0.0, 1.0, 0.0, 1.0, 0.35, 0.0, 0.16)  # no lag: stays
    saved = policy.LAG_CONSUMERS
    try:
        policy.LAG_CONSUMERS = 0
        assert not ends_sooner_elsewhere(0.0, 2.0, 0.0, 1.0, 0.35, 0.0, 0.16)
    finally:
        policy.LAG_CONSUMERS = saved


def _lagging_spans(bench, slow, workers=2):
    """Summed makespans (tidegate / queuing) over the tests' namings with every task of
    the second worker ``slow`` times slower (twin_slow_worker --mode all), and the worst
    peak ratio."""
    out = bench.namings(slow, mode="all", workers=workers)
    return out["time"], out["worst_peak"]


@pytest.mark.parametrize("slow", [2.0, 2.5, 3.0, 4.0])
def test_twin_a_lagging_worker_is_given_work_by_its_pace(slow):
    """Every task of the second worker 2-4x slower (a process lagging throughout,
    twin_slow_worker --mode all): each store followed its load, so the slow worker ran
    half the stores at its pace (base, summed over five namings: 1.288x, 1.514x, 1.313x,
    1.185x queuing's makespan). Found lagging at its loads and their chunk-means
    (policy.lags), its consumers go where they end sooner (LAG_CONSUMERS), past 2.4x its
    roots leave it as a clearly slower worker's (LAG_ROOTS, LAG_LEAVES), and dask's
    stealing no longer moves stores onto it (LAG_STEAL 0): 1.028x, 0.901x, 1.016x,
    1.000x; every peak at or below queuing's (but 1.3 kB)."""
    pytest.importorskip("distributed")
    bench = _twin_slow_worker_bench()
    ratio, peak = _lagging_spans(bench, slow)
    assert ratio <= 1.06, ratio
    # (2.5-3x: 9 / 3 as queuing, 368.0013 MB against its 368.0000: four chunk-means'
    # 328 bytes of count beside their sums)
    assert peak <= 1.00001, peak


def test_twin_lagging_rules_off_are_mains():
    """LAG_CONSUMERS, LAG_ROOTS, LAG_LEAVES 0 and LAG_STEAL 1: main's decisions (the base
    numbers above), so each can be A/B'd."""
    pytest.importorskip("distributed")
    from tidegate import policy

    bench = _twin_slow_worker_bench()
    saved = (policy.LAG_CONSUMERS, policy.LAG_ROOTS, policy.LAG_LEAVES, policy.LAG_STEAL,
             policy.PACE_HELD, policy.IDLE_PACE)
    try:
        # (PACE_HELD 0 too: with the lag rules off a lagging worker is never found, and
        # slow41's loads by pace take that case: 1.073x instead of main's 1.288x; so does
        # slow42's idle_takes: IDLE_PACE 0, else 1.260x)
        policy.LAG_CONSUMERS, policy.LAG_ROOTS, policy.LAG_LEAVES, policy.LAG_STEAL, \
            policy.PACE_HELD, policy.IDLE_PACE = 0, 0, 0, 1, 0.0, 0
        ratio, _ = _lagging_spans(bench, 2.0)
    finally:
        policy.LAG_CONSUMERS, policy.LAG_ROOTS, policy.LAG_LEAVES, policy.LAG_STEAL, \
            policy.PACE_HELD, policy.IDLE_PACE = saved
    assert ratio == pytest.approx(1.288, abs=0.002)


@pytest.mark.parametrize("mode", ["group", "worker"])
@pytest.mark.parametrize("workers", [2, 4])
def test_twin_the_balance_holds_up_to_twice_slower(mode, workers):
    """Up to 2.5x slower (one worker, or one reduction group's loads wherever they run:
    those make the worker running them look slow for two loads), the loads of the
    anomaly stay balanced: 6/6 at 2 x 1, 3 a worker at 4 x 1, peak at or below queuing's."""
    pytest.importorskip("distributed")
    bench = _twin_slow_worker_bench()
    for f in (1.0, 2.0, 2.5) if workers == 2 else (2.0, 3.0):
        out = bench.run(f, mode=mode, workers=workers)
        tide, queue = out["tidegate"], out["queue"]
        # (2 x 1 at 2x: 7 / 5 since slow41, the loads by pace: policy.paced_keeps; 4 x 1,
        # one worker's loads 3x slower: 4 / 3 / 3 / 2 since slow43, policy.slower_alone;
        # 2 x 1, one worker's loads 2.5x slower: 7 / 5 since slow44, policy.idle_tail; 4 x 1,
        # one worker's loads 2x slower or one group's 3x: 4 / 3 / 3 / 2 since slow45, the
        # take asked when a worker goes idle, IDLE_WAKE, and at the tail of a slow group,
        # IDLE_TAIL bit 8 with IDLE_NEAR: 0.979 -> 0.883x, 1.094 -> 1.046x queuing's time)
        tail = workers == 2 and mode == "worker" and f == 2.5
        taken = workers == 4 and (f == 2.0 and mode == "worker" or f == 3.0)
        split = [7, 5] if workers == 2 and f == 2.0 or tail else [4, 3, 3, 2] \
            if taken else [12 // workers] * workers  # fmt: skip
        assert tide["loads_per_worker"] == split, (f, tide)
        assert tide["peak"] <= queue["peak"], f


def test_a_handle_whose_loads_meet_only_each_other_meets_nothing_of_its_own():
    """policy.handle_meets over a plan's meeting inputs ((tops, end, ...) per input): a
    store handle whose every chain ends at itself or at a task of several inputs (end
    None) meets nothing of its own; one chain ending at another root (a stencil's
    neighbour block) meets."""
    from collections import namedtuple

    from tidegate import policy

    Plan = namedtuple("Plan", "inputs")
    h, other = object(), object()
    own = ((("chunk", "load", h), h, None, None, False, True),)
    reduced = ((("aggregate",), None, None, None, False, True),)
    assert not policy.handle_meets(h, Plan((own, own + reduced)))
    assert policy.handle_meets(h, Plan((own, ((("slice", other), other, None, None, False,
                                                True),))))
    assert policy.handle_meets(h, Plan((reduced,)))  # (nothing of its own reached: as walked)
    assert policy.handle_plan_on(4, lambda: False)
    # one thread (HANDLE_PLAN bit 2, bit 4: only for readers waiting for their own reduction)
    assert policy.handle_plan_on(1, lambda: True) and not policy.handle_plan_on(1, lambda: False)


def test_further_plan_entries_kept_per_further_meeting_are_each_roots_own():
    """policy.further_plan with ``chains`` keeps one further meeting's entries (every
    input's) once, under -id(meeting), and each root's plan taken from them is the plan
    built without them, entry for entry and in order: a tree reduction of 16 loads in 4
    groups of 4, each group's combine read by one top combine (cpu33a-findings.txt)."""
    from tidegate import policy

    inputs: dict = {}
    for g in range(4):
        for j in range(4):
            i = 4 * g + j
            inputs[f"load{i}"] = ()
            inputs[f"chunk{i}"] = (f"load{i}",)
        inputs[f"combine{g}"] = tuple(f"chunk{4 * g + j}" for j in range(4))
    inputs["top"] = tuple(f"combine{g}" for g in range(4))
    readers: dict = {t: [] for t in inputs}
    for t, ins in inputs.items():
        for u in ins:
            readers[u].append(t)
    dependents, dependencies = readers.__getitem__, inputs.__getitem__
    chains: dict = {}
    for i in range(16):
        meetings = policy._meetings(f"load{i}", dependents, dependencies, 4, 16)
        fresh = policy.further_plan(meetings, dependents, dependencies)
        kept = policy.further_plan(meetings, dependents, dependencies, chains=chains)
        assert kept == fresh and len(kept) == 3, (i, kept)
        assert [e[0] for e in kept] == [f"combine{g}" for g in range(4) if g != i // 4]
    assert [k for k in chains if k < 0] == [-id("top")]  # one further meeting, kept once


def test_a_handle_no_root_reads_is_no_root_on_one_thread_clusters():
    """policy.is_target / targets_on (TARGETS_NO_ROOT = 2): a constant read as a shared
    handle (8 or more readers, size unknown or handle-sized) that no root reads
    (seed weighted's store handles: every store reads data besides them) is no root, on
    clusters of one-thread workers only; one its readers read alone (a stencil's block, a
    zarr array read by its loads) or known to weigh 64 KiB stays one."""
    from tidegate import policy

    assert policy.is_target(True, 12, -1, roots_read=False)
    assert policy.is_target(True, 12, 56, roots_read=False)
    assert not policy.is_target(True, 12, -1, roots_read=True)  # read by its loads
    assert not policy.is_target(True, 12, 8e6, roots_read=False)  # data after all
    assert not policy.is_target(False, 12, -1, roots_read=False)  # computed: an indexer
    assert not policy.is_target(True, 7, -1, roots_read=False)  # too few readers
    assert policy.targets_on(1) and not policy.targets_on(2) and not policy.targets_on(1.5)


def test_a_combine_goes_elsewhere_only_where_it_adds_less(monkeypatch):
    """policy.combine_elsewhere: the seed anomaly's 5 x 2 partial (COMBINE_BY_HELD): where
    its 3 chunk-means are, beside their 3 kept loads, 120 MB held + 8 copied in; on the
    worker with one load, 40 MB + 32 copied in. Not when the other would add as much or
    at most half a load (32 MB) less (two workers of three loads each: 128 against 112),
    nor with the switch off."""
    import tidegate.policy as policy

    assert policy.combine_elsewhere(128e6, 72e6, 32e6)
    assert not policy.combine_elsewhere(128e6, 112e6, 32e6)
    assert not policy.combine_elsewhere(128e6, 128e6, 32e6)
    assert not policy.combine_elsewhere(104e6, 136e6, 32e6)
    monkeypatch.setattr(policy, "COMBINE_BY_HELD", 0)
    assert not policy.combine_elsewhere(128e6, 72e6, 32e6)


def test_a_worker_that_took_its_share_of_a_wave_takes_no_fresh_opener(monkeypatch):
    """policy.wave_share / over_wave_share (WAVE_SHARE): loaders 8 x 4 / 48, the 16 roots
    left when the first 32 loads end together: a share of 2 a worker. One that took 2 is
    refused a fresh opener while the line (13 besides it) cannot feed the other workers'
    28 threads; not below its share, not while the line feeds them, nor with the switch
    off."""
    import tidegate.policy as policy

    assert policy.wave_share(16, 8) == 2
    assert policy.wave_share(17, 8) == 3
    assert policy.wave_share(5, 0) == 5
    assert policy.over_wave_share(2, 2, 13, 28)
    assert not policy.over_wave_share(1, 2, 13, 28)
    assert not policy.over_wave_share(2, 2, 28, 28)
    monkeypatch.setattr(policy, "WAVE_SHARE", 0)
    assert not policy.over_wave_share(2, 2, 13, 28)


def test_a_pair_splits_where_its_workers_took_a_share_of_one(monkeypatch):
    """policy.splits_for_wave (WAVE_SPLIT): loaders 8 x 2 / 24, 8 roots left when the first
    16 loads end together (a share of 1). A pair's second root whose partners' workers all
    took their share goes elsewhere; not where one of them has not, not at a share of 2
    (the pair fits in it), not where no worker below its share is free for roots, not
    in a meeting of more than two roots, nor in several meetings or a two-array join, nor
    where a partner's worker runs other work than roots, nor with the switch off."""
    import tidegate.policy as policy

    assert policy.splits_for_wave(1, 1, 1)
    assert not policy.splits_for_wave(0, 1, 1)
    assert not policy.splits_for_wave(1, 2, 1)
    assert not policy.splits_for_wave(1, 1, 2)
    assert not policy.splits_for_wave(1, 1, 1, free=False)
    assert not policy.splits_for_wave(1, 1, 1, widest=4)
    assert not policy.splits_for_wave(1, 1, 1, meetings=2)
    assert not policy.splits_for_wave(1, 1, 1, joins=True)
    assert not policy.splits_for_wave(1, 1, 1, roots_only=False)
    monkeypatch.setattr(policy, "WAVE_SPLIT", 0)
    assert not policy.splits_for_wave(1, 1, 1)
