"""Annotations in the thread runtime: priority as order, named concurrency limits, root
overrides, all surviving dask's default fusion (``optimization.fuse.active`` left on)."""

from __future__ import annotations

import math
import random
import threading

import dask
import dask.array as da
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tidegate
from tidegate import annotations
from tidegate.books import Limits
from tidegate.core import Failed, Finished, Run, Scheduler
from tidegate.graph import TaskGraph

from test_core import draw_deps


class Concurrency:
    """Counts tasks running at once, counted by the tasks themselves (under a lock). Each
    task waits (on a condition, not a clock) until ``want`` run together or fewer than
    ``want`` are left to start, so a limit that lets more through is seen for sure."""

    def __init__(self, total: int, want: int):
        self.cond = threading.Condition()
        self.now = self.peak = self.started = 0
        self.total, self.want = total, want
        self.order: list = []

    def __call__(self, block, tag=None):
        if block.size == 0:
            return block  # dask's meta inference, not a task
        with self.cond:
            self.now += 1
            self.started += 1
            self.peak = max(self.peak, self.now)
            self.order.append(tag)
            self.cond.notify_all()
            self.cond.wait_for(
                lambda: self.now >= self.want or self.started > self.total - self.want, timeout=30
            )
            self.now -= 1
        return block


def limited_pipeline(count: Concurrency, n: int = 100):
    x = da.ones((n, 10), chunks=(1, 10))
    with dask.annotate(tidegate_limit="s3-read"):
        y = x.map_blocks(count, dtype=x.dtype)
    return (y + 1).sum()  # fused with ones and the map_blocks: default optimisation


def test_limit_of_3_on_100_tasks_never_exceeded_and_finishes():
    count = Concurrency(100, want=3)  # tasks wait until 3 run at once
    z = limited_pipeline(count)
    assert dask.config.get("optimization.fuse.active", None) in (None, True)
    with tidegate.limits({"s3-read": 3}):
        result = z.compute(scheduler="tidegate", num_workers=6, validate=True)
    assert result == 2000
    assert count.started == 100
    assert count.peak == 3  # reached the limit, never more


def test_without_the_limit_the_same_graph_runs_more_at_once():
    # The control: the counter does see concurrency above 3 when nothing limits it.
    count = Concurrency(100, want=4)
    z = limited_pipeline(count)
    with tidegate.limits({"s3-read": 100}):
        assert z.compute(scheduler="tidegate", num_workers=6) == 2000
    assert count.peak >= 4


def test_limited_tasks_never_block_unrelated_work():
    # Limit 1 on one kind; the other kind needs 3 running together to proceed at all: it
    # only finishes if tasks held by the limit leave the other kind's threads free.
    gate = Concurrency(30, want=3)
    slow = Concurrency(10, want=1)
    a = da.ones((10, 4), chunks=(1, 4))
    with dask.annotate(tidegate_limit="db-write"):
        a = a.map_blocks(slow, dtype=a.dtype)
    b = da.ones((30, 4), chunks=(1, 4)).map_blocks(gate, dtype=float)
    with tidegate.limits({"db-write": 1}):
        ra, rb = dask.compute(a.sum(), b.sum(), scheduler="tidegate", num_workers=4,
                              validate=True)  # fmt: skip
    assert (ra, rb) == (40, 120)
    assert slow.peak == 1
    assert gate.peak == 3


def test_a_limit_below_one_is_refused_before_running():
    ran = []
    x = da.ones(4, chunks=1)
    with dask.annotate(tidegate_limit="w"):
        y = x.map_blocks(lambda b: (b.size and ran.append(1)) or b, dtype=x.dtype)
    with pytest.raises(ValueError, match="integer >= 1"):
        with tidegate.limits({"w": 0}):
            pass
    with dask.config.set({"tidegate.limits": {"w": 0}}):
        with pytest.raises(ValueError, match=">= 1"):
            y.compute(scheduler="tidegate")
    assert ran == []


def test_an_unknown_limit_name_warns_and_runs_unlimited():
    x = da.ones(4, chunks=1)
    with dask.annotate(tidegate_limit="typo"):
        y = x + 1
    with pytest.warns(RuntimeWarning, match="typo"):
        assert y.sum().compute(scheduler="tidegate") == 8


def _logger(log: list, tag: str):
    def f(block):
        if block.size:  # not dask's meta inference
            log.append(tag)
        return block

    return f


def test_priority_annotation_changes_the_actual_order():
    def run(annotate_b: bool):
        log: list = []
        a = da.ones((8, 4), chunks=(1, 4)).map_blocks(_logger(log, "a"), dtype=float)
        with dask.annotate(**({"priority": 10} if annotate_b else {})):
            b = da.zeros((8, 4), chunks=(1, 4)).map_blocks(_logger(log, "b"), dtype=float)
        dask.compute(a.sum(), b.sum(), scheduler="tidegate", num_workers=1, validate=True)
        return log

    plain = run(False)
    assert sorted(plain) == ["a"] * 8 + ["b"] * 8
    assert plain != ["b"] * 8 + ["a"] * 8  # without the annotation: graph order
    assert run(True) == ["b"] * 8 + ["a"] * 8  # priority first, though fused


def test_highest_priority_of_fused_members_wins():
    x = da.ones((4, 4), chunks=2)
    with dask.annotate(priority=3, tidegate_limit="read"):
        y = x + 1
    with dask.annotate(priority=7, tidegate_limit="cpu"):
        z = y * 2
    s = z.sum()
    from dask._task_spec import convert_legacy_graph
    from dask.base import collections_to_expr

    e = collections_to_expr([s]).optimize()  # what dask hands a scheduler, fused
    dsk = convert_legacy_graph(e.__dask_graph__())
    assert not e.__dask_annotations__()  # dask's own: dropped by fusion (dask/dask#7036)
    carried = annotations.carry(annotations.read(collections_to_expr([s])), dsk)
    assert carried["priority"]  # something carries it
    assert set(carried["priority"].values()) == {7}
    assert set(carried["tidegate_limit"].values()) == {("cpu", "read")}
    # Every carried key is a task that runs (not a vanished original key).
    assert all(k in dsk for k in carried["priority"])


def test_root_override():
    def held_roots(annotation):
        x = da.ones((6, 4), chunks=(1, 4))
        if annotation is None:
            y = x + 1
        else:
            with dask.annotate(tidegate_root=annotation):
                y = x + 1
        z = y.sum(axis=1)
        stats = tidegate.RunStats()
        z.compute(scheduler="tidegate", num_workers=2, validate=True, stats=stats)
        return stats.peak_roots_held

    assert held_roots(None) >= 1  # loads are roots by structure
    assert held_roots(False) == 0  # overridden: nothing is withheld as a root


def test_root_override_true_marks_a_task_with_inputs():
    a = da.ones((6, 4), chunks=(1, 4))
    b = a.rechunk((2, 4))  # combines two loads: not a root by structure
    g1 = _graph(b)
    with dask.annotate(tidegate_root=True):
        c = a.rechunk((2, 4))
    g2 = _graph(c)
    assert sum(g2.root) > 0
    assert sum(g2.root) >= sum(g1.root)
    nonroot_structurally = [i for i in range(len(g2)) if g2.ndependencies[i] and g2.root[i]]
    assert nonroot_structurally  # a task with real inputs, declared a root


def _graph(collection):
    """The TaskGraph the bridge builds for a collection (with annotations applied)."""
    from dask._task_spec import convert_legacy_graph
    from dask.base import collections_to_expr

    from tidegate.bridge import to_taskgraph

    expr = collections_to_expr([collection]).optimize()
    dsk = convert_legacy_graph(expr.__dask_graph__())
    from tidegate.bridge import _Plan

    plan = _Plan(dsk, list(dask.core.flatten(expr.__dask_keys__())), {})
    g = to_taskgraph(plan.tasks, plan.outputs, plan.supplied, "dfs", plan.dependencies)
    annotations.annotate_graph(g, collections_to_expr([collection]), dsk, {})
    return g


# -- the core alone: limits as a state machine ------------------------------------------
def _fan(n: int) -> TaskGraph:
    deps = {f"x{i}": [] for i in range(n)}
    deps["sum"] = [f"x{i}" for i in range(n)]
    return TaskGraph.from_dependencies(deps, ["sum"])


@pytest.mark.parametrize("cap", [1, 2, 3])
def test_core_never_runs_more_than_the_limit(cap):
    g = _fan(20)
    g.set_limits({i: ("L",) for i in range(10)}, {"L": cap})
    core = Scheduler(g, [(8, float("inf"))], validate=True)
    running: set = set()
    limited_peak = 0
    actions = core.start()
    while not core.done:
        running |= {a.task for a in actions if type(a) is Run}
        limited_peak = max(limited_peak, sum(1 for i in running if i < 10))
        assert running, "deadlock"
        i = min(running)  # finish in a fixed order
        running.discard(i)
        actions = core.handle(Finished(i, 8))
    assert limited_peak == cap
    assert core.limits.peak["L"] == cap


def test_core_task_under_two_limits():
    g = _fan(12)
    g.set_limits({i: ("A", "B") if i % 2 else ("A",) for i in range(12)}, {"A": 3, "B": 1})
    core = Scheduler(g, [(4, float("inf"))], validate=True)
    actions = core.start()
    running: set = set()
    while not core.done:
        running |= {a.task for a in actions if type(a) is Run}
        assert sum(1 for i in running if i % 2 and i < 12) <= 1
        assert sum(1 for i in running if i < 12) <= 3
        i = max(running)
        running.discard(i)
        actions = core.handle(Finished(i, 8))


def test_limits_book_refuses_bad_caps():
    with pytest.raises(ValueError):
        Limits({"a": 0})
    with pytest.raises(ValueError):
        Limits({"a": 1.5})
    with pytest.raises(ValueError):
        annotations.check_limits({"a": -1})
    g = _fan(2)
    with pytest.raises(ValueError, match="no limit"):
        g.set_limits({0: ("nope",)}, {})


def test_priority_sorts_before_graph_order():
    g = _fan(4)
    base = g.priority.copy()
    user = np.zeros(len(g))
    user[3] = 5
    g.set_user_priority(user)
    assert g.priority[3] == 0
    others = [i for i in range(len(g)) if i != 3]
    assert list(np.argsort(g.priority[others])) == list(np.argsort(base[others]))


# -- property: random graphs, limits, priorities and completion orders -------------------


@st.composite
def limited_runs(draw):
    n = draw(st.integers(2, 40))
    deps = draw_deps(draw, n, 3)
    caps = {"A": draw(st.integers(1, 3)), "B": draw(st.integers(1, 2))}
    limited = {}
    for i in range(n):
        names = draw(st.sampled_from([(), (), ("A",), ("B",), ("A", "B")]))
        if names:
            limited[i] = names
    user = draw(st.lists(st.integers(-2, 2), min_size=n, max_size=n))
    workers = draw(st.lists(st.tuples(st.integers(1, 3), st.sampled_from([math.inf, 50.0, 200.0])),
                            min_size=1, max_size=3))  # fmt: skip
    sizes = draw(st.lists(st.integers(0, 40), min_size=n, max_size=n))
    seed = draw(st.integers(0, 2**16))
    fail = draw(st.sampled_from([None] * 4 + list(range(n))))
    return n, deps, caps, limited, user, workers, sizes, seed, fail



@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(limited_runs())
def test_limits_never_exceeded_never_deadlock(case):
    n, deps, caps, limited, user, workers, sizes, seed, fail = case
    g = TaskGraph.from_dependencies(
        deps, [i for i in range(n) if not any(i in d for d in deps.values())])
    g.set_user_priority(np.asarray(user, dtype=float))
    g.set_limits(limited, caps)
    core = Scheduler(g, workers, validate=True)
    rng = random.Random(seed)
    running: list = []
    started = set()
    actions = core.start()
    while True:
        for a in actions:
            if type(a) is Run:
                assert a.task not in started  # runs once
                started.add(a.task)
                running.append(a.task)
        for name, cap in caps.items():
            assert sum(1 for i in running if name in limited.get(i, ())) <= cap
        if core.done or core.failed is not None and not running:
            break
        assert running, "work remains and nothing runs"  # no deadlock
        i = running.pop(rng.randrange(len(running)))
        if i == fail:
            actions = core.handle(Failed(i))
        else:
            actions = core.handle(Finished(i, sizes[i]))
    if core.failed is None:
        assert started == set(range(n))


# -- carrying, unit by unit ---------------------------------------------------------------
def _carried(collection):
    from dask._task_spec import convert_legacy_graph
    from dask.base import collections_to_expr

    expr = collections_to_expr([collection])
    dsk = convert_legacy_graph(expr.optimize().__dask_graph__())
    return annotations.carry(annotations.read(expr), dsk), dsk


def test_carried_onto_fused_tasks_only_not_downstream():
    import dask.bag as db

    with dask.annotate(priority=3, tidegate_limit="B"):
        bag = db.from_sequence(range(10), npartitions=5).map(abs)
    carried, dsk = _carried(bag.map(abs).sum())
    tasks = [k for k, v in dsk.items() if type(v).__name__ == "Task"]
    assert len(carried["priority"]) == 5  # the five fused partitions
    assert set(carried["priority"].values()) == {3}
    aggregate = [k for k in tasks if k not in carried["priority"]]
    assert aggregate and all("aggregate" in str(k) for k in aggregate)


def test_callable_annotation_is_evaluated_per_key():
    x = da.ones((4, 4), chunks=2)
    with dask.annotate(priority=lambda k: 10 * k[1] + k[2]):
        y = x + 1
    carried, _ = _carried((y * 2).sum())
    assert sorted(carried["priority"].values()) == [0, 1, 10, 11]


def test_array_reduction_tail_not_annotated():
    x = da.ones((8, 8), chunks=2)
    with dask.annotate(tidegate_limit="read"):
        y = x + 1
    carried, dsk = _carried(y.sum())
    limited = set(carried["tidegate_limit"])
    assert len(limited) == 16  # one fused load-add-partial-sum per chunk
    downstream = [k for k, v in dsk.items() if type(v).__name__ == "Task" and k not in limited]
    assert downstream  # the tree reduction and finalize: not limited
    assert all(dsk[k].dependencies for k in downstream)


# -- broadcast waves: the pure pairing (tidegate.policy) ---------------------------------
def test_broadcast_only_for_large_widely_shared_inputs():
    from tidegate.policy import BROADCAST_MIN_BYTES, SHARED_FANOUT, is_broadcast

    assert is_broadcast(BROADCAST_MIN_BYTES, SHARED_FANOUT)
    assert not is_broadcast(BROADCAST_MIN_BYTES - 1, 1000)  # a copy costs a round trip
    assert not is_broadcast(10**9, SHARED_FANOUT - 1)  # a few readers: dask's fetches


def test_broadcast_pairs_one_copy_per_holder_and_no_more_than_needed():
    from tidegate.policy import broadcast_pairs

    assert broadcast_pairs({"a": 0}, ["w1", "w2", "w3"], most=10) == [("w1", "a")]
    assert broadcast_pairs({"a": 1}, ["w2"], most=10) == []  # a is sending
    pairs = broadcast_pairs({"a": 0, "b": 1, "c": 0}, ["w1", "w2", "w3"], most=10)
    assert pairs == [("w1", "a"), ("w2", "c")]  # each free holder once, best receiver first
    assert broadcast_pairs({"a": 0, "c": 0}, ["w1", "w2"], most=1) == [("w1", "a")]
    assert broadcast_pairs({"a": 0}, ["w1"], most=0) == []
    assert broadcast_pairs({"a": 1}, ["w1", "w2"], most=5, per_sender=3) == [
        ("w1", "a"), ("w2", "a")]  # fmt: skip


@settings(deadline=None, max_examples=50)  # a shared, loaded machine stalls single cases
@given(st.integers(1, 300))
def test_broadcast_waves_double_the_holders(n):
    # Copies that take one step each: the holders double per step, so n workers hold the
    # input after ceil(log2(n)) steps, where a single holder would need n - 1.
    from tidegate.policy import broadcast_pairs

    holders, steps = ["w0"], 0
    wanting = [f"w{i}" for i in range(1, n)]
    while wanting:
        pairs = broadcast_pairs(dict.fromkeys(holders, 0), wanting, most=len(wanting))
        assert pairs and len({h for _, h in pairs}) == len(pairs)  # one copy per holder
        got = {w for w, _ in pairs}
        holders += [w for w in wanting if w in got]
        wanting = [w for w in wanting if w not in got]
        steps += 1
    assert steps == math.ceil(math.log2(n)) if n > 1 else steps == 0
