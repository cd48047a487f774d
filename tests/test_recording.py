"""``tidegate.record()``: local computes through the trace sink, and a real LocalCluster
recorded by the scheduler plugin, checked against the graph we know ran."""

from __future__ import annotations

import re
from collections import defaultdict

import numpy as np
import pytest

pytest.importorskip("bokeh")

import dask  # noqa: E402
import dask.array as da  # noqa: E402
from callback_trace import CallbackTrace  # noqa: E402
from conftest import scheduler_workers  # noqa: E402

import tidegate  # noqa: E402
from tidegate import trace  # noqa: E402

N = 8
CHUNK = 125_000  # float64: 1 MB per load


def _load(i):
    return np.full(CHUNK, float(i))


def _fail(x):
    raise ZeroDivisionError("on purpose")


def _graph():
    """8 loads, pairwise sums, one total: keys and dependencies known."""
    loads = [dask.delayed(_load)(i, dask_key_name=f"load-{i}") for i in range(N)]
    pairs = [dask.delayed(np.add)(loads[2 * i], loads[2 * i + 1], dask_key_name=f"pair-{i}")
             for i in range(N // 2)]
    return dask.delayed(sum)(pairs, dask_key_name="total")


EXPECTED = {f"load-{i}" for i in range(N)} | {f"pair-{i}" for i in range(N // 2)} | {"total"}


# -- local ----------------------------------------------------------------------------------
def test_local_computes_inside_the_block_make_the_report(tmp_path):
    x = da.ones((400, 400), chunks=100).sum()
    with tidegate.record(tmp_path / "r.html") as rec:
        with CallbackTrace("first"):
            x.compute(scheduler="threads")
        with CallbackTrace("second"):
            x.compute(scheduler="threads")
    assert [t.name for t in rec.traces] == ["first", "second"]
    assert "first" in rec.path.read_text() and rec.path == tmp_path / "r.html"
    assert [f.name for f in rec.trace_files] == ["r-0.jsonl", "r-1.jsonl"]
    assert trace.Trace.load(rec.trace_files[1]) == rec.traces[1]


def test_thread_runtime_runs_are_recorded(tmp_path):
    x = da.ones((400, 400), chunks=100).sum()
    with tidegate.record(tmp_path / "r.html") as rec:
        assert x.compute(scheduler=tidegate.get) == 400 * 400
    (tr,) = rec.traces
    assert tr.meta["body"] == "threads" and tr.tasks and all(t.ok for t in tr.tasks)
    assert {t.worker for t in tr.tasks} == {"local"}
    assert rec.path.exists()


def test_without_a_path_traces_are_only_collected_and_named(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    x = da.ones(10, chunks=5).sum()
    with tidegate.record(None, name="run") as rec:
        for _ in range(2):
            with CallbackTrace("unnamed"):
                x.compute(scheduler="threads")
    assert [t.name for t in rec.traces] == ["run 1", "run 2"]
    assert rec.path is None and rec.trace_files == [] and list(tmp_path.iterdir()) == []


def test_nothing_computed_warns_and_writes_nothing(tmp_path):
    with pytest.warns(UserWarning, match="nothing was computed"):
        with tidegate.record(tmp_path / "r.html") as rec:
            pass
    assert rec.traces == [] and not rec.path.exists()


def test_the_report_is_written_when_the_block_raises(tmp_path):
    x = da.ones(10, chunks=5).sum()
    with pytest.raises(KeyError, match="after"):
        with tidegate.record(tmp_path / "r.html", save_traces=False) as rec:
            with CallbackTrace("before the error"):
                x.compute(scheduler="threads")
            raise KeyError("after")
    assert "before the error" in rec.path.read_text() and rec.trace_files == []


# -- cluster --------------------------------------------------------------------------------
distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=":0") as cluster:
        yield cluster


@pytest.fixture
def client(cluster):
    with distributed.Client(cluster) as client:
        yield client
        assert not [p for p in client.run_on_scheduler(_plugins) if p.startswith("tidegate")]


def _plugins(dask_scheduler):
    return list(dask_scheduler.plugins)


def test_cluster_run_is_recorded_by_the_client_in_use(client, tmp_path):
    # interval=0: a memory sample after every task end, so each held result is seen
    with tidegate.record(tmp_path / "r.html", interval=0) as rec:
        total = _graph().compute()
    assert total.sum() == sum(range(N)) * CHUNK
    (tr,) = rec.traces
    workers = set(scheduler_workers(client))
    assert tr.meta["body"] == "distributed" and tr.meta["policy"] == "queue"
    assert tr.meta["workers"] == dict.fromkeys(workers, 1)
    assert sorted(t.key for t in tr.tasks) == sorted(EXPECTED)  # each ran once
    by_key = {t.key: t for t in tr.tasks}
    assert {t.worker for t in tr.tasks} <= workers and {t.thread for t in tr.tasks} == {0}
    assert all(0 <= t.start <= t.stop for t in tr.tasks) and all(t.ok for t in tr.tasks)
    assert {t.group for t in tr.tasks} == {"load", "pair", "total"}
    assert {k for k, t in by_key.items() if t.root} == {f"load-{i}" for i in range(N)}
    assert all(by_key[f"load-{i}"].nbytes >= CHUNK * 8 for i in range(N))
    # a pair computed away from an input's worker fetched that input from there
    moved = {(t.key, t.source, t.dest) for t in tr.transfers}
    inputs = {f"pair-{i}": [f"load-{2 * i}", f"load-{2 * i + 1}"] for i in range(N // 2)}
    inputs["total"] = [f"pair-{i}" for i in range(N // 2)]
    crossed = [(d, k) for k, ds in inputs.items() for d in ds
               if by_key[d].worker != by_key[k].worker]
    for d, k in crossed:
        assert (d, by_key[d].worker, by_key[k].worker) in moved
    assert crossed or len({t.worker for t in tr.tasks}) == 1
    assert all(t.source != t.dest and t.nbytes >= CHUNK * 8 for t in tr.transfers)
    assert {m.worker for m in tr.memory} == workers
    assert max(m.held for m in tr.memory) >= CHUNK * 8
    assert all(m.process and m.process > 0 for m in tr.memory)
    text = rec.path.read_text()
    assert "task stream" in text and trace.Trace.load(rec.trace_files[0]).tasks == tr.tasks


def test_local_runs_beside_an_idle_cluster_are_reported_alone(client, tmp_path):
    with tidegate.record(tmp_path / "r.html") as rec:
        with CallbackTrace("local"):
            da.ones(10, chunks=5).sum().compute(scheduler="threads")
    assert [t.name for t in rec.traces] == ["local"]


def test_groups_are_dasks_group_names_without_tokens(client, tmp_path):
    x = da.ones((40, 40), chunks=10)
    with tidegate.record(tmp_path / "r.html", save_traces=False) as rec:
        (x + x.T).sum().compute()
    groups = {t.group for t in rec.traces[0].tasks}
    assert len(groups) > 1 and not [g for g in groups if re.search(r"[0-9a-f]{32}", g)], groups


def test_roots_are_found_by_structure(client, tmp_path):
    # getitem tasks read chunks that are data (DataNodes): tidegate's rule makes them roots
    a = da.from_array(np.arange(1000.0), chunks=100)
    with tidegate.record(tmp_path / "r.html", save_traces=False) as rec:
        (a + a[::-1]).sum().compute()
    roots = {}
    for t in rec.traces[0].tasks:
        roots.setdefault(t.group, set()).add(t.root)
    assert roots["getitem"] == {True} and roots["sum"] == {False}


def test_cluster_trace_named_without_a_report(client, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with tidegate.record(None, name="queue run") as rec:
        _graph().compute()
    (tr,) = rec.traces
    assert tr.name == "queue run" and len(tr.tasks) == len(EXPECTED)
    assert list(tmp_path.iterdir()) == []


def test_failed_tasks_are_recorded_and_the_report_still_written(client, tmp_path):
    bad = dask.delayed(_fail)(dask.delayed(_load)(0, dask_key_name="load-0"), dask_key_name="bad-0")
    with pytest.raises(ZeroDivisionError):
        with tidegate.record(tmp_path / "r.html") as rec:
            bad.compute()
    (tr,) = rec.traces
    assert {(t.key, t.ok) for t in tr.tasks} == {("load-0", True), ("bad-0", False)}
    assert [t.nbytes for t in tr.tasks if not t.ok] == [0] and rec.path.exists()


def _saturation(dask_scheduler, value):
    old, dask_scheduler.WORKER_SATURATION = dask_scheduler.WORKER_SATURATION, value
    return old


def test_roots_in_flight_show_eager_overproduction(client, tmp_path):
    old = client.run_on_scheduler(_saturation, value=float("inf"))  # dask's eager scheduling
    try:
        with tidegate.record(tmp_path / "r.html", interval=0) as rec:
            _graph().compute()
    finally:
        client.run_on_scheduler(_saturation, value=old)
    (tr,) = rec.traces
    assert tr.meta["policy"] == "eager"
    # all 8 loads go out at once, 4 per worker: the sample taken when the first load ends
    # (interval=0) sees all of them in flight. Grouped by sample time, not by the workers'
    # clocks, which a loaded machine skews against the scheduler's.
    at = defaultdict(int)
    for m in tr.memory:
        at[m.time] += m.roots_in_flight
    assert max(at.values()) == N
    assert tr.memory[-1].roots_in_flight == 0  # all consumed at the end


def test_tidegate_plugin_roots_in_flight_are_sampled(client, tmp_path):
    td = pytest.importorskip("tidegate.distributed")
    client.register_plugin(td.Plugin())
    try:
        with tidegate.record(tmp_path / "r.html", interval=0, client=client) as rec:
            _graph().compute()
    finally:
        assert td.uninstall(client)
    (tr,) = rec.traces
    assert tr.meta["policy"] == "tidegate" and len(tr.tasks) == len(EXPECTED)
    peak = tr.summary()["peak_roots_in_flight"]
    # ceil(1.1 x 1 thread) = 2 per worker; a root completing a pair may pass it, and a
    # running pair keeps one slot of its two: twice that at most.
    assert 1 <= peak <= 2 * 2


def test_a_report_path_that_cannot_be_written_is_refused_before_the_block_runs(tmp_path):
    """Checked on entry, not after the computes (review23: a missing folder raised
    FileNotFoundError at the block's end, after all its work)."""
    ran = []
    for path in (tmp_path / "no" / "such" / "r.html", tmp_path):
        with pytest.raises(OSError, match="tidegate.record"):
            with tidegate.record(path):
                ran.append(path)
    assert ran == [] and list(tmp_path.iterdir()) == []


def test_computes_on_a_scheduler_record_cannot_see_are_named(tmp_path):
    """A compute on dask's own threaded scheduler leaves no trace: the warning must say so,
    not that nothing was computed, and also when only collecting (path None: it was
    silent, so the README's ``record(None) ... x.compute()`` gave ``traces == []``)."""
    x = da.ones(10, chunks=5).sum()
    with pytest.warns(UserWarning, match=r"1 compute .*not recorded.*scheduler=\"tidegate\""):
        with tidegate.record(tmp_path / "r.html") as rec:
            x.compute(scheduler="threads")
    assert rec.traces == [] and list(tmp_path.iterdir()) == []
    with pytest.warns(UserWarning, match=r"2 computes .*not recorded"):
        with tidegate.record(None) as rec:
            x.compute(scheduler="sync")
            x.compute(scheduler="threads")
            x.compute(scheduler="tidegate")
    assert [t.meta["body"] for t in rec.traces] == ["threads"]


def test_recorded_computes_do_not_warn(tmp_path, recwarn):
    x = da.ones(10, chunks=5).sum()
    with tidegate.record(tmp_path / "r.html") as rec:
        x.compute(scheduler="tidegate")
        with CallbackTrace("by callbacks"):
            x.compute(scheduler="threads")
    assert len(rec.traces) == 2
    assert not [w for w in recwarn.list if "record" in str(w.message)], recwarn.list


def test_the_blocks_own_error_is_not_hidden_by_a_warning():
    """The notice of computes not recorded comes from record()'s exit: with warnings made
    errors (pytest -W error), raised there it replaced the block's own error."""
    import warnings

    x = da.ones(10, chunks=5).sum()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(KeyError, match="mine"):
            with tidegate.record(None):
                x.compute(scheduler="threads")
                raise KeyError("mine")
