"""dask's diagnostics and callbacks see tidegate's run as they see dask's own schedulers."""

from __future__ import annotations

import io
import threading
from operator import add

import dask
import dask.array as da
import numpy as np
import pytest
from dask import delayed
from dask._task_spec import Task
from dask.callbacks import Callback
from dask.diagnostics import Profiler, ProgressBar

import tidegate

pytestmark = pytest.mark.usefixtures("no_leaked_tidegate_threads")


class Recording(Callback):
    """Records every callback, in order, with what it was given."""

    def __init__(self):
        super().__init__()
        self.lock = threading.Lock()
        self.events: list = []
        self.graphs: list = []
        self.states: list = []
        self.results: dict = {}
        self.worker_ids: set = set()
        self.finished_at_finish = None

    def _add(self, *event):
        with self.lock:
            self.events.append(event)

    def _start(self, dsk):
        self.graphs.append(dsk)
        self._add("start")

    def _start_state(self, dsk, state):
        self.states.append(state)
        self._add("start_state")

    def _pretask(self, key, dsk, state):
        assert key in dsk
        self._add("pretask", key)

    def _posttask(self, key, result, dsk, state, id):
        assert key in dsk
        self.results[key] = result
        self.worker_ids.add(id)
        self._add("posttask", key)

    def _finish(self, dsk, state, errored):
        if state:
            self.finished_at_finish = len(state["finished"])
        self._add("finish", errored)

    def keys(self, kind):
        return [e[1] for e in self.events if e[0] == kind]

    def kinds(self):
        return [e[0] for e in self.events]


def _delayed_graph(calls):
    lock = threading.Lock()

    def f(name, *args):
        with lock:
            calls.append(name)
        return sum(args) + 1

    leaves = [delayed(f)(f"leaf{i}", i, dask_key_name=f"leaf-{i}") for i in range(8)]
    pairs = [
        delayed(f)(f"pair{i}", leaves[2 * i], leaves[2 * i + 1], dask_key_name=f"pair-{i}")
        for i in range(4)
    ]
    top = delayed(f)("top", *pairs, dask_key_name="top")
    return top, 8 + 4 + 1


EXPECTED_TOP = sum((2 * i + 1) + (2 * i + 2) + 1 for i in range(4)) + 1  # 45


# -- ProgressBar ------------------------------------------------------------------------
@pytest.mark.parametrize("threads", [1, 3])
def test_progress_bar_reaches_100_percent(threads):
    out = io.StringIO()
    x = (da.ones((40, 40), chunks=10) + 1).sum(axis=0)
    with ProgressBar(out=out, dt=0.001):
        result = x.compute(scheduler=tidegate.get, num_workers=threads, validate=True)
    np.testing.assert_array_equal(result, np.full(40, 80.0))
    text = out.getvalue()
    assert "100% Completed" in text
    # The last drawn bar is the complete one.
    assert text.rstrip().split("\r")[-1].startswith("[" + "#" * 40 + "] | 100%")


# validate=True also checks the core's invariants after the failure (see test_errors.py).
@pytest.mark.parametrize("validate", [False, True])
def test_progress_bar_on_failure_shows_what_finished_as_dask_does(validate):
    def boom(x):
        raise RuntimeError("no")

    last = {}
    for scheduler in ("threads", tidegate.get):
        out = io.StringIO()
        with ProgressBar(out=out, dt=0.001), pytest.raises(RuntimeError):
            kwargs = {} if scheduler == "threads" else {"validate": validate}
            delayed(boom)(delayed(add)(1, 2)).compute(scheduler=scheduler, **kwargs)
        last[scheduler] = out.getvalue().rstrip().split("\r")[-1].split("|")[:2]
    # one of two tasks finished; the failed one counts as not finished, never as 100%
    half = ["[" + "#" * 20 + " " * 20 + "] ", " 50% Completed "]
    assert last["threads"] == last[tidegate.get] == half


def test_progress_bar_sees_live_counts():
    """Mid-run, the state ProgressBar reads has sane sizes (as in dask.local)."""
    seen = []

    class Peek(Callback):
        def _pretask(self, key, dsk, state):
            seen.append({k: len(state[k]) for k in ("waiting", "ready", "running", "finished")})

    calls: list = []
    top, ntasks = _delayed_graph(calls)
    with Peek():
        assert top.compute(scheduler=tidegate.get, num_workers=2, validate=True) == EXPECTED_TOP
    assert len(seen) == ntasks
    for counts in seen:
        assert all(v >= 0 for v in counts.values())
        assert sum(counts.values()) <= ntasks
        assert counts["finished"] < ntasks
    assert [c["finished"] for c in seen] == sorted(c["finished"] for c in seen)


def test_state_views_iterate_from_another_thread_while_tasks_move():
    """The live ``state`` views' items() and values() read one snapshot (review20: the
    Mapping defaults looked each key up again and raised KeyError 2-8 times a run once
    its task had moved on)."""
    errors, reads, stop = [], [0], threading.Event()

    class Reader(Callback):
        def _start_state(self, dsk, state):
            def loop():
                while not stop.is_set():
                    for k in ("waiting", "waiting_data", "dependents", "cache"):
                        try:
                            list(state[k].items())
                            list(state[k].values())
                        except Exception as exc:  # noqa: BLE001 - what the test counts
                            errors.append(repr(exc))
                    reads[0] += 1

            self.thread = threading.Thread(target=loop, daemon=True)
            self.thread.start()

        def _finish(self, dsk, state, errored):
            stop.set()
            self.thread.join()

    x = da.random.RandomState(0).random_sample((2000, 2000), chunks=100)
    with Reader():
        got = (x - x.mean(axis=0)).std().compute(scheduler=tidegate.get, num_workers=2)
    assert np.isfinite(got) and reads[0] > 10
    assert errors == [], errors[:3]


# -- Profiler ---------------------------------------------------------------------------
@pytest.mark.parametrize("policy", ["tidegate", "priority"])
def test_profiler_one_result_per_task(policy):
    calls: list = []
    top, ntasks = _delayed_graph(calls)
    with Profiler() as prof:
        assert top.compute(scheduler=tidegate.get, num_workers=3, policy=policy) == EXPECTED_TOP
    assert len(calls) == ntasks
    keys = [r.key for r in prof.results]
    assert len(keys) == len(set(keys)) == ntasks  # one per executed task
    assert set(keys) >= {"top"} | {f"leaf-{i}" for i in range(8)} | {f"pair-{i}" for i in range(4)}
    for r in prof.results:
        assert r.start_time <= r.end_time
        assert r.worker_id in range(3)


def test_profiler_on_an_array():
    x = (da.arange(100, chunks=10) * 2).sum()
    rec = Recording()
    with Profiler() as prof, rec:
        assert x.compute(scheduler=tidegate.get, num_workers=2, validate=True) == 9900
    keys = [r.key for r in prof.results]
    assert len(keys) == len(set(keys))
    (dsk,) = rec.graphs  # the (optimised) graph the scheduler was given
    tasks = {k for k, v in dsk.items() if isinstance(v, Task)}
    assert len(tasks) >= 11  # ten chunks and their sum at least
    # Every task executed once; data in the graph and aliases are not tasks: they never run.
    assert tasks == set(keys)


# -- custom Callback --------------------------------------------------------------------
@pytest.mark.parametrize("threads", [1, 4])
@pytest.mark.parametrize("policy", ["tidegate", "priority"])
def test_custom_callback_sees_every_task_once(threads, policy):
    calls: list = []
    top, ntasks = _delayed_graph(calls)
    rec = Recording()
    with rec:
        result = top.compute(scheduler=tidegate.get, num_workers=threads, policy=policy,
                             validate=True)
    assert result == EXPECTED_TOP
    kinds = rec.kinds()
    assert kinds[:2] == ["start", "start_state"]
    assert kinds[-1] == "finish" and rec.events[-1] == ("finish", False)
    assert kinds.count("start") == kinds.count("start_state") == kinds.count("finish") == 1
    (dsk,) = rec.graphs
    pre, post = rec.keys("pretask"), rec.keys("posttask")
    assert len(pre) == len(set(pre)) == ntasks == len(calls)
    assert sorted(post) == sorted(pre)
    assert set(pre) <= set(dsk)
    # Each task's posttask comes after its pretask; a task starts after its inputs ended.
    where = {e: n for n, e in enumerate(rec.events)}
    for k in pre:
        assert where[("pretask", k)] < where[("posttask", k)]
    for i in range(4):
        for leaf in (f"leaf-{2 * i}", f"leaf-{2 * i + 1}"):
            assert where[("posttask", leaf)] < where[("pretask", f"pair-{i}")]
        assert where[("posttask", f"pair-{i}")] < where[("pretask", "top")]
    assert rec.results["top"] == EXPECTED_TOP
    assert rec.results["leaf-3"] == 4
    assert rec.worker_ids <= set(range(threads))
    assert rec.finished_at_finish == ntasks


@pytest.mark.parametrize("validate", [False, True])
def test_custom_callback_finish_errored_on_failure(validate):
    ran = []

    def boom(x):
        ran.append("boom")
        raise ZeroDivisionError("boom")

    a = delayed(add, pure=False)(1, 2, dask_key_name="a")
    b = delayed(boom)(a, dask_key_name="b")
    c = delayed(add)(b, 1, dask_key_name="c")
    rec = Recording()
    with rec, pytest.raises(ZeroDivisionError):
        c.compute(scheduler=tidegate.get, num_workers=1, validate=validate)
    assert ran == ["boom"]
    assert rec.events[-1] == ("finish", True)
    assert rec.kinds().count("finish") == 1
    assert rec.keys("pretask") == ["a", "b"]  # c never started
    assert rec.keys("posttask") == ["a"]  # the failed task has no posttask


def test_custom_callback_finish_errored_on_a_bad_graph():
    rec = Recording()
    with rec, pytest.raises(ValueError, match="cycle"):
        tidegate.get({"a": (add, "b", 1), "b": (add, "a", 1)}, ["a"])
    assert rec.kinds()[0] == "start"
    assert rec.events[-1] == ("finish", True)
    assert rec.keys("pretask") == [] and rec.keys("posttask") == []


def test_a_raising_callback_stops_the_run_cleanly():
    ran = []

    def work(i):
        ran.append(i)
        return i

    def pretask(key, dsk, state):
        if len(ran) >= 2:
            raise KeyError("callback failed")

    rec = Recording()
    parts = [delayed(work)(i) for i in range(10)]
    with rec, Callback(pretask=pretask), pytest.raises(KeyError, match="callback failed"):
        dask.compute(*parts, scheduler=tidegate.get, num_workers=1, validate=True)
    assert 2 <= len(ran) < 10
    assert rec.events[-1] == ("finish", True)


def test_callbacks_apply_to_the_outer_compute_only():
    """A compute inside a task does not report its tasks to the outer callbacks (as in dask)."""

    def inner(x):
        return delayed(add)(delayed(add)(x, 1), 1).compute(scheduler=tidegate.get)

    outer = delayed(inner)(delayed(add)(1, 1))
    rec = Recording()
    with rec:
        assert outer.compute(scheduler=tidegate.get, num_workers=2) == 4
    (dsk,) = rec.graphs
    assert set(rec.keys("pretask")) <= set(dsk)
    assert len(rec.keys("pretask")) == 2
    assert rec.kinds().count("finish") == 1


def test_callback_with_only_some_methods():
    seen = []
    x = delayed(add)(delayed(add)(1, 2), 3)
    with Callback(posttask=lambda key, result, dsk, state, id: seen.append(result)):
        assert x.compute(scheduler=tidegate.get, validate=True) == 6
    assert sorted(seen) == [3, 6]


def test_callbacks_also_work_with_config_scheduler():
    calls: list = []
    top, ntasks = _delayed_graph(calls)
    rec = Recording()
    with dask.config.set(scheduler=tidegate.get), rec:
        assert top.compute() == EXPECTED_TOP
    assert len(rec.keys("posttask")) == ntasks
    assert rec.events[-1] == ("finish", False)


def test_callbacks_state_covers_what_runs_after_culling():
    """``state["dependencies"]``/``["dependents"]`` name the tasks that run, as dask's
    schedulers' do after culling (review20b: 404 keys against sync's 5)."""
    seen = {}

    class Peek(Callback):
        def _start_state(self, dsk, state):
            seen["deps"] = set(state["dependencies"])
            seen["dependents"] = dict(state["dependents"])

    big = da.ones((200, 200), chunks=(10, 10))
    with Peek():
        big[:10, :10].sum().compute(scheduler=tidegate.get, optimize_graph=False)
    assert 1 < len(seen["deps"]) < 10, len(seen["deps"])
    assert all(v <= seen["deps"] for v in seen["dependents"].values())
