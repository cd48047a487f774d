"""One policy (issue 9, item 4): the thread runtime's core and the dask plugin count a
consumer's inputs alike. Data embedded in the graph (a DataNode: a store handle, an
embedded array) is not a second input: a read taking an open's handle and a DataNode has a
single input, so the open's tiny handle leads to the data its read loads (``_chained``) and
the read carries that data on (``single``)."""

from __future__ import annotations

import math
from types import SimpleNamespace

import dask
import numpy as np
import pytest
from dask._task_spec import DataNode, Task, convert_legacy_graph
from dask.callbacks import Callback

import tidegate
from tidegate.core import MEMORY, Finished, Run, Scheduler
from tidegate.policy import Policy, meeting_partners
from tidegate.testing import drive, make_graph

distributed = pytest.importorskip("distributed")
from dask.utils import key_split
from distributed.scheduler import TaskGroup, TaskPrefix, TaskState
from distributed.utils import key_split_group

from tidegate.distributed import hooks
from tidegate.distributed import tasks as plugin_tasks

# Graphs as ({key: inputs}, constants): constants are DataNodes, tasks of the graph as the
# plugin sees them on a cluster.
GRAPHS = {
    # open -> read, the read also taking a DataNode (its offsets); a big load beside it
    "open-read-datanode": (
        {
            "off": [],
            "open0": [],
            "open1": [],
            "read0": ["open0", "off"],
            "read1": ["open1", "off"],
            "big0": [],
            "big1": [],
            "step0": ["read0", "big0"],
            "step1": ["read1", "big1"],
            "sum": ["step0", "step1"],
        },
        {"off"},
    ),
    # vorticity-like: an open per step feeding two reads that take a constant grid each
    "vorticity-files": (
        {
            "gx": [],
            "gy": [],
            "open0": [],
            "u0": ["open0", "gx"],
            "v0": ["open0", "gy"],
            "w0": ["u0", "v0", "gx", "gy"],
            "open1": [],
            "u1": ["open1", "gx"],
            "v1": ["open1", "gy"],
            "w1": ["u1", "v1", "gx", "gy"],
            "out": ["w0", "w1"],
        },
        {"gx", "gy"},
    ),
    # loaders behind a store handle (a DataNode), combined in pairs: roots with an input
    "store-handle": (
        {
            "store": [],
            **{f"l{i}": ["store"] for i in range(4)},
            "p0": ["l0", "l1"],
            "p1": ["l2", "l3"],
            "s": ["p0", "p1"],
        },
        {"store"},
    ),
    # a rechunk: loads split into pieces, pieces of neighbours merged (one array: tuple
    # keys of one name), each merge added to a load of another array
    "rechunk": (
        {
            **{("u", i): [] for i in range(3)},
            **{("split", i, j): [("u", i)] for i in range(3) for j in range(2)},
            ("merge", 0): [("split", 0, 0), ("split", 0, 1), ("split", 1, 0)],
            ("merge", 1): [("split", 1, 1), ("split", 2, 0), ("split", 2, 1)],
            **{("v", k): [] for k in range(2)},
            **{("add", k): [("merge", k), ("v", k)] for k in range(2)},
            "total": [("add", 0), ("add", 1)],
        },
        set(),
    ),
    # an open of a path (a DataNode) read by 8 loads, combined in pairs: the open is a
    # shared handle, as when get() hands the path in as a value, and the loads are roots
    "opened-path": (
        {
            "path": [],
            "h": ["path"],
            **{f"r{i}": ["h"] for i in range(8)},
            **{f"p{k}": [f"r{2 * k}", f"r{2 * k + 1}"] for k in range(4)},
            "end": [f"p{k}" for k in range(4)],
        },
        {"path"},
    ),
    # a shared handle (no inputs, read by 8 loads), a chain open -> read -> select, and a
    # task whose inputs are two constants and one datum
    "mixed": (
        {
            "h": [],
            **{f"r{i}": ["h"] for i in range(8)},
            "c1": [],
            "c2": [],
            "o": [],
            "rd": ["o"],
            "sel": ["rd", "c1", "c2"],
            "t": ["sel", "r0", "r1"],
            "u": [f"r{i}" for i in range(2, 8)],
            "end": ["t", "u"],
        },
        {"c1", "c2"},
    ),
}


def _func(*args):
    return None


def _graph(deps: dict, constants: set):
    """The core's graph, with groups as the bridge names them (key_split)."""
    g = make_graph(
        deps, [k for k in deps if not any(k in v for v in deps.values())], constants=constants
    )
    g.set_groups([key_split(k) for k in g.keys])
    return g


def _taskstates(deps: dict, constants: set) -> dict:
    """The plugin's view of the graph: dask TaskStates, DataNodes among them, in task groups
    as dask's scheduler makes them (key_split_group)."""
    prefix = TaskPrefix("p")
    groups: dict = {}
    tasks = {}
    for k in deps:
        spec = DataNode(k, None) if k in constants else Task(k, _func)
        name = key_split_group(k)
        group = groups.get(name) or groups.setdefault(name, TaskGroup(name, prefix))
        tasks[k] = TaskState(k, spec, "released", group, False)
    for k, ins in deps.items():
        for d in ins:
            tasks[k].add_dependency(tasks[d])
    return tasks


def _plugin_single(tasks: dict, key) -> bool:
    """The ``single`` the plugin passes to books.on_finished when ``key`` finishes, its
    inputs carrying data (only then is it asked: the books read it for carriers alone)."""
    got = []
    books = SimpleNamespace(carrying=dict.fromkeys(tasks, 1), roots_max=0.0,
                            on_finished=lambda *a: got.append(a[3]))
    plugin = SimpleNamespace(
        books=books,
        limits=SimpleNamespace(caps={}),
        scheduler=SimpleNamespace(tasks=tasks),
        _is_root_cache={},
        _note_combine=lambda ts, worker: None,  # (a tree reduction's combine: not asked here)
        _readers={},  # (policy.lags' readers: none registered here)
        _pace_moved=set(),  # (PACE_STAYS: no task moved by pace here)
    )
    hooks.Plugin._left_processing(plugin, key, "memory", "s")
    (single,) = got
    return single


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_core_counts_inputs_as_the_plugin_does(name):
    deps, constants = GRAPHS[name]
    g = _graph(deps, constants)
    core = Scheduler(g, [(2, math.inf)])
    tasks = _taskstates(deps, constants)
    for i, k in enumerate(g.keys):
        ts = tasks[k]
        assert core._chained(i) == plugin_tasks._chained(ts), (k, "chained")
        assert bool(g.root[i]) == plugin_tasks._structural_root(ts), (k, "root")
        if ts.dependencies:
            assert core._single[i] == _plugin_single(tasks, k), (k, "single")
        if not g.root[i]:  # a join of pieces of one array (policy.joins_pieces)
            joins = not math.isnan(plugin_tasks._pieces(ts.dependencies))
            assert core._joins[i] == joins, (k, "joins")


def test_a_rechunk_merge_counts_in_the_thread_runtime_as_in_the_plugin():
    """The core passes a join's pieces to the books as the plugin does (issue 9, item 4):
    a rechunk's merge, as large as the pieces it joined, holds its loads' data on its worker
    until the add combines it. Before, only the plugin passed them: the core freed the
    loads' slots at the merge and counted nothing while merges waited for their adds."""
    deps, constants = GRAPHS["rechunk"]
    g = _graph(deps, constants)
    core = Scheduler(g, [(1, math.inf)], Policy("tidegate", 1.0), validate=True)
    ix = {k: i for i, k in enumerate(g.keys)}
    sizes = {"u": 8 << 20, "split": 4 << 20, "merge": 12 << 20, "v": 12 << 20}
    merge = ix[("merge", 0)]
    seen = []

    def on_event(c):
        if c.state[merge] == MEMORY:
            seen.append(c.books.in_flight(merge))

    drive(core, size=lambda i: sizes.get(g.keys[i][0], 100) if type(g.keys[i]) is tuple
          else 100, on_event=on_event)  # fmt: skip
    assert core.done
    assert seen and all(seen), core.books.story(merge)
    events = [e[1] for e in core.books.story(merge)]
    assert events[:1] == ["joined"] and "landed" in events, core.books.story(merge)


def test_an_open_feeding_a_read_that_also_takes_a_datanode_stays_in_flight():
    """The core on the graph the plugin sees (the DataNode a task): the open's 16-byte
    handle, tiny beside a 16 MB load, still counts as data in flight, and its read carries
    that data on until a task combines it. Counting the DataNode as a second input (before),
    the open was not chained: its slot freed at once and the read's data was never counted."""
    deps = {
        "big0": [],
        "big1": [],
        "open0": [],
        "open1": [],
        "off": [],
        "read0": ["open0", "off"],
        "read1": ["open1", "off"],
        "step0": ["big0", "read0"],
        "step1": ["big1", "read1"],
        "sum": ["step0", "step1"],
    }
    g = make_graph(deps, ["sum"], constants={"off"})
    core = Scheduler(g, [(2, math.inf)], Policy("tidegate", 1.0), validate=True)
    ix = {k: i for i, k in enumerate(g.keys)}
    sizes = {
        "off": 800,
        "big0": 16 << 20,
        "big1": 16 << 20,
        "open0": 16,
        "open1": 16,
        "read0": 8 << 20,
        "read1": 8 << 20,
    }
    running = {a.task for a in core.start() if type(a) is Run}
    assert running == {ix["big0"], ix["open0"]}  # the first load, then the open

    def finish(i):
        running.discard(i)
        running.update(
            a.task for a in core.handle(Finished(i, sizes.get(g.keys[i], 100))) if type(a) is Run
        )

    finish(ix["big0"])  # the largest root result so far: 16 MB
    finish(ix["open0"])  # 16 bytes: 1/10**6 of it, yet its read takes it on
    open0 = ix["open0"]
    assert core.books.in_flight(open0), core.books.story(open0)
    while running:
        finish(min(running))
    assert core.done
    assert _landed(core, open0) == [("read0", {"step0"})], core.books.story(open0)


def _landed(core, root) -> list:
    """``[(carrier, finished)]``: where root's data stopped being in flight: the result
    that carried it, and the tasks whose finishing was that event (one of them consumed it;
    the thread runtime hands in completions in batches)."""
    keys = core.graph.keys
    finished: dict = {}
    for e in core.log:
        if e[2] == MEMORY:
            finished.setdefault(e[3], set()).add(keys[e[0]])
    return [
        (keys[e[3]], finished.get(e[4], set())) for e in core.books.story(root) if e[1] == "landed"
    ]


def _open(path):
    return open(path, "rb")  # a file handle: a couple of hundred bytes by dask's sizeof


def _read(f, offsets):
    with f:
        return np.load(f) + offsets[0]


def _combine(a, b):
    return float(a.sum() + b.sum())


def test_thread_runtime_open_read_with_a_datanode(tmp_path):
    """Real files, tidegate.get with 2 threads: each open's handle, tiny beside the 4 MB
    loads, leads to its read (which also takes a DataNode), and lands where the step combines
    it. get() hands the DataNode in as a value, not a task, so the core sees the read's one
    input (this held before the core counted constants as the plugin does, too)."""
    n = 6
    opens, bigs = [], []
    offsets = dask.delayed(np.arange(100.0))  # a DataNode in the graph
    for k in range(n):
        np.save(tmp_path / f"u{k}.npy", np.full(1 << 19, float(k)))
        np.save(tmp_path / f"b{k}.npy", np.ones(1 << 19))
        opens.append(dask.delayed(_open)(str(tmp_path / f"u{k}.npy"), dask_key_name=f"open-{k}"))
        bigs.append(dask.delayed(np.load)(str(tmp_path / f"b{k}.npy"), dask_key_name=f"big-{k}"))
    reads = [
        dask.delayed(_read)(o, offsets, dask_key_name=f"read-{k}") for k, o in enumerate(opens)
    ]
    steps = [
        dask.delayed(_combine)(r, b, dask_key_name=f"step-{k}")
        for k, (r, b) in enumerate(zip(reads, bigs))
    ]
    total = dask.delayed(sum)(steps)
    assert any(
        type(v) is DataNode for v in convert_legacy_graph(dict(total.__dask_graph__())).values()
    )

    seen = []
    with Callback(finish=lambda dsk, state, errored: seen.append(state["tidegate"]._core)):
        got = total.compute(scheduler=tidegate.get, num_workers=2, memory_limit="none")
    assert got == sum(k * (1 << 19) + (1 << 19) for k in range(n))
    (core,) = seen
    keys = core.graph.keys
    ix = {k: i for i, k in enumerate(keys)}
    for k in range(n):
        o = ix[f"open-{k}"]
        assert core._chained(o)
        ((carrier, finished),) = _landed(core, o)
        assert carrier == f"read-{k}" and f"step-{k}" in finished, core.books.story(o)


def test_an_open_of_a_datanode_path_is_a_handle_for_roots_and_meetings():
    """``h = open(path)`` with path a DataNode, read by 8 loads combined in pairs (issue 9,
    item 4). Both bodies find the loads as roots (the core counted path as h's input when
    the DataNode was a task, the plugin always did: their roots were path and h, and the
    8 loads of data ran unwithheld). The meeting walk treats h as a handle: where h is held
    makes no worker a partner of r0, and r0's meeting lacks r1, the root below h (before:
    h's worker was every load's partner and nothing was lacked)."""
    deps, constants = GRAPHS["opened-path"]
    g = _graph(deps, constants)
    ix = {k: i for i, k in enumerate(g.keys)}
    roots = {g.keys[i] for i in np.flatnonzero(g.root)}
    assert roots == {"path", "h"} | {f"r{i}" for i in range(8)}
    tasks = _taskstates(deps, constants)
    assert all(plugin_tasks._structural_root(tasks[f"r{i}"]) for i in range(8))

    # The core's walk over its int graph: h held on worker 0, nothing else placed.
    core = Scheduler(g, [(1, math.inf), (1, math.inf)])
    core.state[ix["path"]] = core.state[ix["h"]] = MEMORY
    core.where[ix["h"]] = 0
    lacks: set = set()
    got = meeting_partners(ix["r0"], core._dependents, core._dependencies, core._where,
                           lacks=lacks, constant=core._constant.__getitem__)  # fmt: skip
    assert got == {} and lacks == {ix["r1"]}
    assert not core._completes_consumer(ix["r0"], 0)

    # The plugin's walk over dask's TaskStates, the same answer.
    held = {tasks["h"]: ["a"], tasks["path"]: ["a"]}
    lacks = set()
    got = meeting_partners(tasks["r0"], plugin_tasks._dependents, plugin_tasks._dependencies,
                           lambda t: held.get(t, []), lacks=lacks,
                           constant=plugin_tasks._constant)  # fmt: skip
    assert got == {} and lacks == {tasks["r1"]}


class _Worker:
    """A dask WorkerState as the plugin's walks read it: its address (hashable by identity)."""

    __slots__ = ("address",)

    def __init__(self, address):
        self.address = address


# vorticity-files, 2 steps: a grid chain (og -> g) read by every step's combine w.
GRID_SERIES = {
    "og": [], "g": ["og"],
    "oa0": [], "a0": ["oa0"], "ob0": [], "b0": ["ob0"], "w0": ["a0", "b0", "g"],
    "oa1": [], "a1": ["oa1"], "ob1": [], "b1": ["ob1"], "w1": ["a1", "b1", "g"],
    "end": ["w0", "w1"],
}

# (graph, constants, {task: worker holding it}, {(root, worker): completes a consumer?})
COMPLETES = {
    # A stencil input read by two consumers: 0 feeds 2 and 4; 3 completes 4 where 0 is
    # (the plugin said no: 0 is read by another task too, so it counted only as "shared").
    "stencil": (
        {0: [], 1: [], 2: [0, 1], 3: [], 4: [0, 3]},
        set(),
        {0: 0, 1: 1},
        {(3, 0): True, (3, 1): False},
    ),
    # vorticity-files, 2 steps: the grid (a root chain) is held on worker 0, read by every
    # step. The open of step 0's u completes nothing: its v is nowhere yet (the core said
    # yes on the grid's worker: any partner counted). Once u's read is on worker 0, v's
    # open completes the step there, not where only a copy of the grid is.
    "grid-series": (
        GRID_SERIES,
        set(),
        {"g": 0},
        {("oa0", 0): False, ("oa0", 1): False},
    ),
    "grid-series, u read": (
        GRID_SERIES,
        set(),
        {"g": 0, "a0": 0},
        {("ob0", 0): True, ("ob0", 1): False, ("oa1", 0): False},
    ),
    # A meeting of three loads with one placed: the second load completes nothing, but
    # the first waits for it alone (read by no other task): a partner that counts.
    "three": (
        {"x": [], "y": [], "z": [], "m": ["x", "y", "z"], "other": [], "end": ["m", "other"]},
        set(),
        {"x": 0},
        {("y", 0): True, ("y", 1): False},
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(COMPLETES))
def test_both_bodies_ask_one_question_for_completes_a_consumer(name):
    """Issue 9, item 4: "completes a consumer" (a root that may pass its worker's in-flight
    count) is one rule, ``meeting_partners(..., complete=)``, asked by the core
    (``_completes_consumer``) and by the plugin (``plugin_tasks._partners`` -> ``books.place``):
    a partner on that worker that no other task reads, or a meeting with every other input
    there. On main the core counted any partner there (the grid of a short series) and the
    plugin only partners no other task reads (the stencil); each was wrong in one graph."""
    deps, constants, held, expected = COMPLETES[name]
    g = _graph(deps, constants)
    ix = {k: i for i, k in enumerate(g.keys)}
    core = Scheduler(g, [(1, math.inf), (1, math.inf)])
    for k, w in held.items():
        core.state[ix[k]] = MEMORY
        core.where[ix[k]] = w
    tasks = _taskstates(deps, constants)
    workers = [_Worker("a"), _Worker("b")]
    for k, w in held.items():
        tasks[k].who_has = {workers[w]}
    for (root, w), want in expected.items():
        assert core._completes_consumer(ix[root], w) == want, (root, w, "core")
        complete: set = set()
        plugin_tasks._partners(tasks[root], set(), {}, complete)
        assert (workers[w].address in complete) == want, (root, w, "plugin")
