"""Failing tasks, bad graphs and bad options: clear errors, raised early, nothing left behind."""

from __future__ import annotations

import re
import threading
import traceback
from operator import add

import dask
import dask.array as da
import numpy as np
import pytest
from dask import delayed
from dask._task_spec import Alias, DataNode, List, Task, TaskRef

import tidegate

pytestmark = pytest.mark.usefixtures("no_leaked_tidegate_threads")


class Recorder:
    """Task functions with side effects, to prove what ran and in what order.

    ``rec.task(key, *deps)`` is a legacy task calling ``rec("@key", *deps)``: the label starts
    with "@" so that a legacy graph never reads it as a reference to a key.
    """

    def __init__(self):
        self.lock = threading.Lock()
        self.ran: list = []

    def __call__(self, label, *args):
        with self.lock:
            self.ran.append(label.lstrip("@"))
        return sum(a for a in args if isinstance(a, (int, float))) + 1

    def task(self, key, *deps, func=None):
        return (func or self, f"@{key}", *deps)


def inc(x):
    return x + 1


def user_function_that_divides(x):
    return x / 0


# -- a failing task ---------------------------------------------------------------------
@pytest.mark.parametrize("policy", ["tidegate", "priority"])
@pytest.mark.parametrize("threads", [1, 3])
def test_task_error_is_reraised_with_its_traceback(policy, threads):
    parts = [delayed(inc)(i) for i in range(6)]
    bad = delayed(user_function_that_divides)(parts[2])
    total = delayed(sum)([*parts, bad])
    with pytest.raises(ZeroDivisionError) as info:
        total.compute(scheduler=tidegate.get, num_workers=threads, policy=policy, validate=True)
    frames = [f.name for f in traceback.extract_tb(info.value.__traceback__)]
    assert "user_function_that_divides" in frames


def test_error_type_and_message_are_kept():
    class Custom(Exception):
        pass

    def boom(x):
        raise Custom(f"bad chunk {x}")

    with pytest.raises(Custom, match="bad chunk 7"):
        delayed(boom)(7).compute(scheduler=tidegate.get, validate=True)


def test_array_task_error():
    def check(block):
        if block.sum() > 30:
            raise ValueError("block too large")
        return block

    x = da.arange(40, chunks=5).map_blocks(check)
    with pytest.raises(ValueError, match="block too large") as info:
        x.sum().compute(scheduler=tidegate.get, num_workers=2, validate=True)
    assert "check" in [f.name for f in traceback.extract_tb(info.value.__traceback__)]


@pytest.mark.parametrize("policy", ["tidegate", "priority"])
@pytest.mark.parametrize("order", ["dfs", "dask"])
def test_nothing_starts_after_a_failure_one_thread(policy, order):
    rec = Recorder()

    def fail(label):
        rec(label)
        raise RuntimeError("task failed")

    # Independent tasks: one thread runs them one by one, so after the failing task ran
    # nothing else may have started.
    dsk = {f"t{i}": rec.task(f"t{i}") for i in range(20)}
    dsk["t3"] = rec.task("t3", func=fail)
    keys = [f"t{i}" for i in range(20)]
    with pytest.raises(RuntimeError, match="task failed"):
        tidegate.get(dsk, keys, num_workers=1, policy=policy, order=order, validate=True)
    assert rec.ran[-1] == "t3", rec.ran
    assert len(rec.ran) < 20  # tasks were left that never started
    assert len(set(rec.ran)) == len(rec.ran)


def test_nothing_starts_after_a_failure_in_a_chain():
    rec = Recorder()

    def fail(label, x):
        rec(label)
        raise RuntimeError("link failed")

    # A chain c0 <- c1 <- ... plus side tasks hanging off each link.
    dsk = {"c0": rec.task("c0")}
    for i in range(1, 10):
        dsk[f"c{i}"] = rec.task(f"c{i}", f"c{i - 1}")
        dsk[f"side{i}"] = rec.task(f"side{i}", f"c{i - 1}")
    dsk["c4"] = rec.task("c4", "c3", func=fail)
    keys = ["c9"] + [f"side{i}" for i in range(1, 10)]
    with pytest.raises(RuntimeError, match="link failed"):
        tidegate.get(dsk, keys, num_workers=1, validate=True)
    assert rec.ran[-1] == "c4", rec.ran
    assert not {"c5", "c6", "c7", "c8", "c9", "side6", "side7", "side8", "side9"} & set(rec.ran)


@pytest.mark.parametrize("policy", ["tidegate", "priority"])
def test_error_is_raised_while_another_task_still_runs(policy):
    """A fails while B runs: the caller gets A's error at once, not when B ends, and no other
    task starts. B ends only when the test lets it, after get() has raised."""
    rec = Recorder()
    b_running, let_b_end, b_ended = threading.Event(), threading.Event(), threading.Event()

    def a(label):
        assert b_running.wait(60)  # B is surely running when A fails
        rec(label)
        raise RuntimeError("A failed")

    def b(label):
        rec(label)
        b_running.set()
        let_b_end.wait(60)  # the timeout only bounds a broken run
        b_ended.set()
        return 1

    dsk = {"A": rec.task("A", func=a), "B": rec.task("B", func=b)}
    dsk.update({f"c{i}": rec.task(f"c{i}") for i in range(10)})
    keys = ["A", "B"] + [f"c{i}" for i in range(10)]
    try:
        with pytest.raises(RuntimeError, match="A failed"):
            tidegate.get(dsk, keys, num_workers=2, policy=policy, validate=True)
        assert not b_ended.is_set(), "the error waited for an unrelated running task"
    finally:
        let_b_end.set()
    assert b_ended.wait(60)
    assert sorted(rec.ran) == ["A", "B"], rec.ran


def _fails_last_consumer():
    # "a" is needed only by "b", which fails.
    return {"a": (add, 1, 2), "b": (user_function_that_divides, "a")}, ["b"]


def _fails_with_finished_sibling():
    # "a" feeds "b" (fails) and "c"; with one thread "c" may finish before "b" runs.
    return {"a": (add, 1, 2), "c": (inc, "a"), "b": (user_function_that_divides, "a")}, ["c", "b"]


def _fails_on_array_chunk():
    def check(block):
        if block[0] == 20:
            raise ZeroDivisionError("chunk 20")
        return block

    x = da.arange(40, chunks=10).map_blocks(check).sum()
    return x, None


@pytest.mark.parametrize("validate", [False, True])
@pytest.mark.parametrize(
    "build", [_fails_last_consumer, _fails_with_finished_sibling, _fails_on_array_chunk]
)
def test_failure_is_reported_with_validation_on(build, validate):
    """validate=True checks the core after every event, the failure included: the user still
    gets their own exception, not an invariant check tripping over the failed task."""
    dsk, keys = build()
    with pytest.raises(ZeroDivisionError):
        if keys is None:
            dsk.compute(scheduler=tidegate.get, num_workers=1, validate=validate)
        else:
            tidegate.get(dsk, keys, num_workers=1, validate=validate)


def test_scheduler_is_usable_after_a_failure():
    bad = delayed(user_function_that_divides)(1)
    with pytest.raises(ZeroDivisionError):
        bad.compute(scheduler=tidegate.get, validate=True)
    assert delayed(add)(delayed(inc)(1), 2).compute(scheduler=tidegate.get, validate=True) == 4


class Unmeasurable:
    """A result whose ``__sizeof__`` raises: dask's own schedulers never ask."""

    def __sizeof__(self):
        raise TypeError("no size for you")


@pytest.mark.parametrize("memory_limit", [None, "1GB"])
def test_unmeasurable_result_is_not_a_task_failure(memory_limit):
    made = delayed(Unmeasurable)()
    x = delayed(lambda u: type(u).__name__)(made)
    assert x.compute(scheduler="threads") == "Unmeasurable"
    with pytest.warns(RuntimeWarning, match="sizeof failed on the result of .*Unmeasurable"):
        assert x.compute(scheduler=tidegate.get, memory_limit=memory_limit) == "Unmeasurable"


# -- bad graphs -------------------------------------------------------------------------
def _cyclic_graphs(rec):
    t = rec.task
    return [
        # a <-> b
        ({"a": t("a", "b"), "b": t("b", "a")}, ["a"]),
        # a self-loop, next to a healthy task that was requested first
        ({"ok": t("ok"), "s": t("s", "s")}, ["ok", "s"]),
        # a longer loop feeding a tail; only the tail is requested
        (
            {
                "x": t("x", "z"),
                "y": t("y", "x"),
                "z": t("z", "y"),
                "tail": t("tail", "x"),
                "free": t("free"),
            },
            ["tail", "free"],
        ),
        # a loop nobody asked for, beside the requested task
        ({"want": t("want"), "p": t("p", "q"), "q": t("q", "p")}, ["want"]),
    ]


@pytest.mark.parametrize("case", range(4))
@pytest.mark.parametrize("order", ["dfs", "dask"])
def test_cycle_is_refused_before_anything_runs(case, order):
    rec = Recorder()
    dsk, keys = _cyclic_graphs(rec)[case]
    with pytest.raises(ValueError, match="cycle"):
        tidegate.get(dsk, keys, num_workers=2, order=order, validate=True)
    assert rec.ran == []


@pytest.mark.parametrize(
    "node",
    [
        lambda rec: Task("b", rec, "@b", TaskRef("ghost-key")),
        lambda rec: Alias("b", "ghost-key"),
        lambda rec: Task("b", rec, "@b", List(1, TaskRef("ghost-key"))),
    ],
    ids=["taskref", "alias", "nested-taskref"],
)
def test_reference_to_a_missing_key_is_refused(node):
    rec = Recorder()
    dsk = {
        "a": Task("a", rec, "@a"),
        "b": node(rec),
        "c": Task("c", rec, "@c", TaskRef("a"), TaskRef("b")),
    }
    with pytest.raises(ValueError, match="ghost-key"):
        tidegate.get(dsk, ["c"], num_workers=2, validate=True)
    assert rec.ran == []


def test_missing_key_is_fine_when_supplied():
    rec = Recorder()
    dsk = {"b": Task("b", rec, "@b", TaskRef("ghost-key"))}
    assert tidegate.get(dsk, ["b"], cache={"ghost-key": 10}, validate=True) == (11,)
    assert rec.ran == ["b"]


@pytest.mark.parametrize(
    "keys", [["z", "nope-key"], "nope-key", [["z"], ["nope-key"]], [("nope-key", 0)]]
)
def test_requesting_a_key_not_in_the_graph(keys):
    rec = Recorder()
    dsk = {"x": DataNode("x", 1), "y": Task("y", rec, "@y", TaskRef("x")), "z": rec.task("z", "y")}
    with pytest.raises(KeyError, match="nope-key"):  # as dask's schedulers
        tidegate.get(dsk, keys, validate=True)
    assert rec.ran == []


def test_graph_values_that_are_not_tasks_are_constants():
    # A legacy graph's plain values are data, as in dask: not an error.
    dsk = {"x": [1, 2, 3], "y": (sum, "x"), "s": "just a string"}
    assert tidegate.get(dsk, ["y", "s"], validate=True) == (6, "just a string")


# -- bad options ------------------------------------------------------------------------
BAD_OPTIONS = [
    pytest.param("memory_limit", "lots", id="memory_limit-lots"),
    pytest.param("memory_limit", -5, id="memory_limit-negative"),
    pytest.param("memory_limit", 0, id="memory_limit-zero"),
    pytest.param("memory_limit", "-3GB", id="memory_limit-negative-string"),
    pytest.param("memory_limit", True, id="memory_limit-bool"),
    pytest.param("memory_limit", float("nan"), id="memory_limit-nan"),
    pytest.param("memory_limit", "1e400", id="memory_limit-overflowing"),  # was OverflowError
    pytest.param("memory_limit", "", id="memory_limit-empty"),  # was 1 byte
    pytest.param("memory_limit", "0.5", id="memory_limit-under-a-byte"),
    pytest.param("memory_limit", 0.5, id="memory_limit-a-share-is-the-plugin-s"),
    pytest.param("memory_limit", "1", id="memory_limit-bare-one"),  # was 1 byte (review21)
    pytest.param("memory_limit", 1, id="memory_limit-one"),  # a share on a cluster
    pytest.param("saturation", 0, id="saturation-zero"),
    pytest.param("saturation", -1, id="saturation-negative"),
    pytest.param("saturation", float("nan"), id="saturation-nan"),
    pytest.param("saturation", "high", id="saturation-string"),
    pytest.param("num_workers", 0, id="num_workers-zero"),
    pytest.param("num_workers", -2, id="num_workers-negative"),
    pytest.param("num_workers", 2.5, id="num_workers-float"),
    pytest.param("num_workers", "4", id="num_workers-string"),
    pytest.param("policy", "nope", id="policy-nope"),
    pytest.param("order", "nope", id="order-nope"),
]

CONFIG_NAME = {
    "memory_limit": "memory-limit",
    "num_workers": "num-workers",
    "saturation": "saturation",
    "policy": "policy",
    "order": "order",
}


def _option_pattern(option: str) -> str:
    # The message names the option, spelled as the argument or as its config key.
    return option.replace("_", "[_ -]")


def _side_effect_graph(rec):
    return {"a": rec.task("a"), "b": rec.task("b", "a")}


@pytest.mark.parametrize("option,value", BAD_OPTIONS)
def test_bad_option_argument(option, value):
    rec = Recorder()
    with pytest.raises(ValueError) as info:
        tidegate.get(_side_effect_graph(rec), ["b"], **{option: value})
    assert re.search(_option_pattern(option), str(info.value)), str(info.value)
    assert rec.ran == []


@pytest.mark.parametrize("option,value", BAD_OPTIONS)
def test_bad_option_in_dask_config(option, value):
    rec = Recorder()
    with dask.config.set({f"tidegate.{CONFIG_NAME[option]}": value}):
        with pytest.raises(ValueError) as info:
            tidegate.get(_side_effect_graph(rec), ["b"])
        # through compute() as well
        with pytest.raises(ValueError):
            delayed(rec)("@c").compute(scheduler=tidegate.get)
    assert re.search(_option_pattern(option), str(info.value)), str(info.value)
    assert rec.ran == []


def test_explicit_argument_overrides_bad_config():
    rec = Recorder()
    with dask.config.set({"tidegate.saturation": 0, "tidegate.policy": "nope"}):
        assert tidegate.get(_side_effect_graph(rec), "b", saturation=2, policy="priority") == 2


@pytest.mark.parametrize(
    "option,value", [("memory_limit", "2GB"), ("memory_limit", 1e9), ("saturation", 0.5),
                     ("saturation", float("inf")), ("num_workers", 3), ("order", "dask"),
                     ("memory_limit", np.int64(2e9)), ("num_workers", np.int64(2))]  # review20
)
def test_good_option_values_are_accepted(option, value):
    rec = Recorder()
    assert tidegate.get(_side_effect_graph(rec), "b", validate=True, **{option: value}) == 2
    assert rec.ran == ["a", "b"]


def test_memory_limit_below_the_largest_task_is_refused_before_running():
    ran = []

    def touch(block):
        ran.append(block.shape)
        return block

    # Chunk sizes are known from the array's metadata: 800 B each, four of them summed.
    x = da.ones((20, 20), chunks=(10, 10)).map_blocks(touch) + 1
    ran.clear()  # map_blocks calls touch on empty metadata arrays while building x
    with pytest.raises(ValueError, match="memory_limit"):
        x.sum().compute(scheduler=tidegate.get, memory_limit=100)
    assert ran == []
    # A budget that holds the largest footprint runs, and gives the right answer.
    assert x.sum().compute(scheduler=tidegate.get, memory_limit="1MB", validate=True) == 800.0
    assert len(ran) == 4


def test_a_bad_stats_or_recompute_roots_is_named_before_running():
    """stats={} was an AttributeError from the middle of get(); tidegate.recompute-roots:
    "no" was read as true (bool of a string), so reads ran again that the user had turned
    off (review23)."""
    rec = Recorder()
    with pytest.raises(TypeError, match=r"stats must be a tidegate.RunStats\(\), got dict"):
        tidegate.get(_side_effect_graph(rec), ["b"], stats={})
    for value in ("no", "false", None, 2):
        with dask.config.set({"tidegate.recompute-roots": value}):
            with pytest.raises(ValueError, match="tidegate.recompute-roots must be true or "
                                                 f"false, got {value!r}"):
                tidegate.get(_side_effect_graph(rec), ["b"])
    assert rec.ran == []
    for value in (False, True, 0, 1):
        with dask.config.set({"tidegate.recompute-roots": value}):
            assert tidegate.get(_side_effect_graph(rec), "b") == 2
