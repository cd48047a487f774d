"""tidegate.get computes the same values as dask's own schedulers, on every kind of collection."""

from __future__ import annotations

import operator
import threading
from operator import add

import dask
import dask.array as da
import dask.bag as db
import dask.dataframe as dd
import dask.threaded
import numpy as np
import pandas as pd
import pytest
import xarray as xr
from dask import delayed
from dask._task_spec import Alias, DataNode, List, Task, TaskRef

import tidegate
from conftest import thread_names

pytestmark = pytest.mark.usefixtures("no_leaked_tidegate_threads")


def inc(x):
    return x + 1


# -- dask.array -------------------------------------------------------------------------
RNG = np.random.default_rng(42)
A = RNG.standard_normal((20, 18))
B = RNG.standard_normal((20, 18))


def _arrays():
    return da.from_array(A, chunks=(5, 6)), da.from_array(B, chunks=(4, 9))


def _smooth(x):
    return (np.roll(x, 1, axis=0) + x + np.roll(x, -1, axis=0)) / 3


ARRAY_CASES = {
    "elementwise": (lambda a, b: (a + 1) * b - da.sin(a), lambda: (A + 1) * B - np.sin(A)),
    "slicing": (lambda a, b: a[::2, 3:17] * 2, lambda: A[::2, 3:17] * 2),
    "fancy-index": (lambda a, b: a[[0, 7, 3, 19]], lambda: A[[0, 7, 3, 19]]),
    "stack-sum": (lambda a, b: da.stack([a, b]).sum(0), lambda: np.stack([A, B]).sum(0)),
    "rechunk": (lambda a, b: a.rechunk((7, 11)) + b.rechunk((20, 3)), lambda: A + B),
    "transpose-rechunk": (lambda a, b: a.T.rechunk((18, 2)), lambda: A.T),
    "matmul": (lambda a, b: a @ b.T, lambda: A @ B.T),
    "sum-axis0": (lambda a, b: a.sum(axis=0), lambda: A.sum(axis=0)),
    "mean-axis1": (lambda a, b: a.mean(axis=1), lambda: A.mean(axis=1)),
    "std-axis0": (lambda a, b: a.std(axis=0), lambda: A.std(axis=0)),
    "std-all": (lambda a, b: b.std(), lambda: B.std()),
    "sum-all": (lambda a, b: (a * b).sum(), lambda: (A * B).sum()),
    "map-overlap": (
        lambda a, b: a.map_overlap(_smooth, depth={0: 1, 1: 0}, boundary="periodic"),
        lambda: _smooth(A),
    ),
    "demean": (lambda a, b: a - a.mean(axis=0), lambda: A - A.mean(axis=0)),
    "offset-slices": (lambda a, b: a[1:] + b[1:], lambda: A[1:] + B[1:]),
    "cumsum": (lambda a, b: a.cumsum(axis=1), lambda: A.cumsum(axis=1)),
}


@pytest.mark.parametrize("case", list(ARRAY_CASES))
def test_arrays_match_dask(case, scheduler):
    build, reference = ARRAY_CASES[case]
    x = build(*_arrays())
    expected = x.compute(scheduler="sync")
    result = x.compute(scheduler=scheduler)
    assert np.shape(result) == np.shape(expected)
    # Same tasks on the same inputs: the values must be identical, not merely close.
    np.testing.assert_array_equal(result, expected)
    np.testing.assert_allclose(result, reference(), rtol=1e-10, atol=1e-12)


def test_array_multiple_outputs_share_inputs(scheduler):
    a, b = _arrays()
    c = a + b
    s, m, t = dask.compute(c.sum(), c.mean(axis=0), c[::3], scheduler=scheduler)
    np.testing.assert_allclose(s, (A + B).sum())
    np.testing.assert_allclose(m, (A + B).mean(axis=0))
    np.testing.assert_array_equal(t, (A + B)[::3])


def test_array_from_delayed_chunks(scheduler):
    parts = [da.from_delayed(delayed(np.full)((3, 4), float(i)), (3, 4), float) for i in range(5)]
    x = da.concatenate(parts, axis=0)
    result = (x * 2).sum(axis=1).compute(scheduler=scheduler)
    np.testing.assert_array_equal(result, np.repeat(np.arange(5) * 8.0, 3))


# -- xarray -----------------------------------------------------------------------------
def _dataset():
    time = pd.date_range("2001-01-01", periods=2 * 365, freq="D")
    rng = np.random.default_rng(0)
    data = rng.standard_normal((time.size, 3, 4)) + np.arange(time.size)[:, None, None] / 100
    ds = xr.Dataset(
        {
            "sst": (("time", "lat", "lon"), data),
            "mask": (("lat", "lon"), rng.random((3, 4)) > 0.5),
        },
        coords={"time": time, "lat": [10.0, 20.0, 30.0], "lon": [0.0, 90.0, 180.0, 270.0]},
    )
    return ds.chunk({"time": 73, "lat": 3, "lon": 2})


def test_xarray_groupby_month_mean(scheduler):
    ds = _dataset()
    monthly = ds.sst.groupby("time.month").mean()
    expected = monthly.compute(scheduler="sync")
    result = monthly.compute(scheduler=scheduler)
    assert result.sizes["month"] == 12
    xr.testing.assert_identical(result, expected)
    reference = ds.sst.load(scheduler="sync").groupby("time.month").mean()
    xr.testing.assert_allclose(result, reference)


def test_xarray_dayofyear_anomaly(settings, make_scheduler):
    # Twice-daily samples over the turn of a year: every day of year is a group of two or more.
    time = pd.date_range("2001-12-01", periods=120, freq="12h")
    rng = np.random.default_rng(2)
    ds = xr.Dataset(
        {"sst": (("time", "lat", "lon"), rng.standard_normal((time.size, 3, 4)))},
        coords={"time": time, "lat": [10.0, 20.0, 30.0], "lon": [0.0, 90.0, 180.0, 270.0]},
    ).chunk({"time": 30})
    clim = ds.groupby("time.dayofyear").mean("time")
    anom = ds.groupby("time.dayofyear") - clim
    expected = anom.compute(scheduler="sync")
    result = anom.compute(scheduler=make_scheduler(**settings))  # ~800 tasks
    xr.testing.assert_identical(result, expected)
    # An anomaly against its own climatology averages to zero per day of year.
    np.testing.assert_allclose(
        result.sst.groupby("time.dayofyear").mean().values, 0.0, atol=1e-12
    )


@pytest.mark.filterwarnings("ignore:Consolidated metadata:UserWarning")
def test_xarray_to_zarr_round_trip(tmp_path, settings, make_scheduler):
    ds = _dataset()
    path = tmp_path / "store.zarr"
    with dask.config.set(scheduler=make_scheduler(**settings)):
        ds.to_zarr(path)
    back = xr.open_zarr(path)
    assert back.sst.chunks is not None  # lazily reopened, read back below
    xr.testing.assert_identical(back.compute(scheduler="sync"), ds.compute(scheduler="sync"))
    # And reading it back with tidegate gives the same values too.
    xr.testing.assert_identical(
        back.compute(scheduler=make_scheduler(**settings)), ds.compute(scheduler="sync")
    )


# -- dask.dataframe ---------------------------------------------------------------------
def _frames():
    rng = np.random.default_rng(1)
    n = 200
    left = pd.DataFrame(
        {
            "k": rng.integers(0, 7, n),
            "x": rng.permutation(n),
            "y": rng.standard_normal(n),
        }
    )
    right = pd.DataFrame({"k": np.arange(7), "name": [f"n{i}" for i in range(7)]})
    return left, right


def _same_frame(result, expected):
    pd.testing.assert_frame_equal(result, expected, check_dtype=False, check_index_type=False)


def test_dataframe_groupby_agg(scheduler):
    left, _ = _frames()
    ddf = dd.from_pandas(left, npartitions=5)
    agg = ddf.groupby("k").agg({"x": "sum", "y": ["mean", "max"]})
    result = agg.compute(scheduler=scheduler).sort_index()
    _same_frame(result, agg.compute(scheduler="sync").sort_index())
    _same_frame(result, left.groupby("k").agg({"x": "sum", "y": ["mean", "max"]}).sort_index())


def test_dataframe_merge(scheduler):
    left, right = _frames()
    merged = dd.from_pandas(left, npartitions=4).merge(
        dd.from_pandas(right, npartitions=2), on="k", how="inner"
    )
    with dask.config.set(scheduler=scheduler):
        result = merged.compute()
    key = ["x"]
    expected = left.merge(right, on="k").sort_values(key).reset_index(drop=True)
    _same_frame(result.sort_values(key).reset_index(drop=True), expected)


def test_dataframe_to_parquet_and_from_delayed(tmp_path, scheduler):
    """Reading a collection's layers never evaluates dask-expr's ``_meta`` (its
    ``__getattr__`` does, and raises for these two: review20, both failed before running)."""
    left, _ = _frames()
    dd.from_pandas(left, npartitions=3).to_parquet(
        tmp_path / "p", compute_kwargs={"scheduler": scheduler})
    _same_frame(pd.read_parquet(tmp_path / "p").sort_values("x").reset_index(drop=True),
                left.sort_values("x").reset_index(drop=True))  # fmt: skip
    parts = [delayed(pd.DataFrame)({"a": [i, i]}) for i in range(3)]
    total = dd.from_delayed(parts, meta={"a": "i8"}).a.sum()
    assert total.compute(scheduler=scheduler) == 6


def test_dataframe_set_index_and_sort_values(scheduler):
    left, _ = _frames()
    ddf = dd.from_pandas(left, npartitions=5)
    # set_index and sort_values compute divisions first: that compute goes through tidegate too.
    with dask.config.set(scheduler=scheduler):
        by_x = ddf.set_index("x").compute()
        by_y = ddf.sort_values("y").compute()
    _same_frame(by_x, left.set_index("x").sort_index())
    _same_frame(by_y.reset_index(drop=True), left.sort_values("y").reset_index(drop=True))


def test_dataframe_series_reductions(scheduler):
    left, _ = _frames()
    ddf = dd.from_pandas(left, npartitions=6)
    total, counts, mean = dask.compute(
        ddf.x.sum(), ddf.k.value_counts(), ddf.y.mean(), scheduler=scheduler
    )
    assert total == left.x.sum()
    pd.testing.assert_series_equal(
        counts.sort_index(), left.k.value_counts().sort_index(), check_dtype=False
    )
    assert mean == pytest.approx(left.y.mean(), rel=1e-12)


# -- dask.delayed -----------------------------------------------------------------------
def _delayed_graph():
    a = delayed(inc)(1)
    b = delayed(add)(a, 10)
    c = delayed(operator.mul)(a, b)
    d = delayed(sum)([a, b, c])
    return a, b, c, d  # 2, 12, 24, 38


def test_delayed_multiple_outputs(scheduler):
    a, b, c, d = _delayed_graph()
    assert dask.compute(a, b, c, scheduler=scheduler) == (2, 12, 24)
    assert dask.compute(d, scheduler=scheduler) == (38,)
    assert d.compute(scheduler=scheduler) == 38


def test_delayed_nested_outputs(scheduler):
    a, b, c, d = _delayed_graph()
    nested = {"first": [a, (b, c)], "deep": {"d": [d, [a]]}, "plain": 5}
    expected = dask.compute(nested, scheduler="sync")
    result = dask.compute(nested, scheduler=scheduler)
    assert result == expected == ({"first": [2, (12, 24)], "deep": {"d": [38, [2]]}, "plain": 5},)


def test_delayed_same_key_twice(scheduler):
    a, b, _, _ = _delayed_graph()
    assert dask.compute([a, a, b], scheduler=scheduler) == ([2, 2, 12],)
    assert dask.compute(a, a, scheduler=scheduler) == (2, 2)


def test_delayed_runs_each_task_once(scheduler):
    lock = threading.Lock()
    calls: dict = {}

    def record(name, *args):
        with lock:
            calls[name] = calls.get(name, 0) + 1
        return sum(args) + 1

    leaves = [delayed(record)(f"leaf{i}", i) for i in range(12)]
    mids = [delayed(record)(f"mid{i}", leaves[i], leaves[(i + 1) % 12]) for i in range(12)]
    top = delayed(record)("top", *mids)
    expected = sum((i + 1) + ((i + 1) % 12 + 1) + 1 for i in range(12)) + 1
    assert top.compute(scheduler=scheduler) == expected
    once = {f"leaf{i}": 1 for i in range(12)} | {f"mid{i}": 1 for i in range(12)} | {"top": 1}
    assert calls == once


# -- dask.bag ---------------------------------------------------------------------------
def test_bag_map_filter_fold_foldby(scheduler):
    b = db.from_sequence(range(100), npartitions=7)
    evens = b.map(inc).filter(lambda x: x % 2 == 0)
    total = evens.fold(add)
    by_mod = b.foldby(lambda x: x % 3, add, 0, add, 0)
    freq = b.map(lambda x: x % 4).frequencies()
    got_list, got_total, got_by, got_freq = dask.compute(
        evens, total, by_mod, freq, scheduler=scheduler
    )
    assert got_list == [x + 1 for x in range(100) if (x + 1) % 2 == 0]
    assert got_total == sum(x + 1 for x in range(100) if (x + 1) % 2 == 0)
    assert dict(got_by) == {r: sum(x for x in range(100) if x % 3 == r) for r in range(3)}
    assert dict(got_freq) == {r: 25 for r in range(4)}


# -- persist ----------------------------------------------------------------------------
def test_persist(scheduler):
    a, b = _arrays()
    x = (a + 1) * 2
    d = delayed(sum)([delayed(inc)(i) for i in range(10)])
    px, pd_ = dask.persist(x, d, scheduler=scheduler)
    # Persisted: every chunk is now a value in the graph, nothing left to compute.
    assert len(px.__dask_graph__()) == len(list(dask.core.flatten(px.__dask_keys__())))
    np.testing.assert_array_equal(px.compute(scheduler="sync"), (A + 1) * 2)
    np.testing.assert_array_equal(px.compute(scheduler=scheduler), (A + 1) * 2)
    np.testing.assert_allclose(
        (px - 1).sum(axis=0).compute(scheduler=scheduler), ((A + 1) * 2 - 1).sum(axis=0)
    )
    assert pd_.compute(scheduler=scheduler) == 55
    (again,) = dask.persist(px, scheduler=scheduler)
    np.testing.assert_array_equal(again.compute(scheduler=scheduler), (A + 1) * 2)


def test_collection_persist_method(scheduler):
    left, _ = _frames()
    ddf = dd.from_pandas(left, npartitions=4)
    p = (ddf.x * 2).persist(scheduler=scheduler)
    pd.testing.assert_series_equal(p.compute(scheduler=scheduler), left.x * 2, check_dtype=False)


# -- dask.config, threads ---------------------------------------------------------------
@pytest.mark.parametrize("scheduler", [tidegate.get, "tidegate"], ids=["function", "name"])
def test_config_scheduler_is_tidegate(scheduler):
    a, b = _arrays()
    stats = tidegate.RunStats()
    with dask.config.set(scheduler=scheduler):
        result = (a * b).sum(axis=1).compute(stats=stats)
    assert stats.tasks > 0  # tidegate really ran it
    np.testing.assert_allclose(result, (A * B).sum(axis=1))
    stats = tidegate.RunStats()
    with dask.config.set(scheduler=scheduler):
        assert delayed(add)(delayed(inc)(1), 3).compute(stats=stats) == 5
    assert stats.tasks == 2


@pytest.mark.parametrize("threads", [1, 2, 4])
@pytest.mark.parametrize("how", ["argument", "config"])
def test_num_workers_sets_the_threads(threads, how):
    where, seen = thread_names()
    parts = [delayed(where)(i) for i in range(40)]
    total = delayed(sum)(parts)
    if how == "argument":
        assert total.compute(scheduler=tidegate.get, num_workers=threads, validate=True) == 780
    else:
        with dask.config.set({"tidegate.num-workers": threads}):
            assert total.compute(scheduler=tidegate.get, validate=True) == 780
    assert seen and seen <= {f"tidegate-{k}" for k in range(threads)}


def test_dask_num_workers_setting_is_honoured():
    where, seen = thread_names()
    total = delayed(sum)([delayed(where)(i) for i in range(20)])
    with dask.config.set(num_workers=1):
        assert total.compute(scheduler=tidegate.get) == 190
    assert seen == {"tidegate-0"}


@pytest.mark.parametrize("policy", ["tidegate", "priority"])
# 4 kB: every result spills; var's combines hold about 2 kB (a smaller limit is refused)
@pytest.mark.parametrize("limit", [4_000, "1MB", None])
def test_memory_limit_does_not_change_results(limit, policy, make_scheduler):
    a, b = _arrays()
    x = (a[1:] + b[1:]).std(axis=0)
    result = x.compute(scheduler=make_scheduler(memory_limit=limit, policy=policy, num_workers=2))
    np.testing.assert_array_equal(result, x.compute(scheduler="sync"))


@pytest.mark.parametrize("saturation", [0.5, 2.5, float("inf")])
def test_saturation_does_not_change_results(saturation, make_scheduler):
    a, b = _arrays()
    x = da.stack([a, b]).sum(0).mean(axis=1)
    result = x.compute(scheduler=make_scheduler(saturation=saturation, num_workers=2))
    np.testing.assert_array_equal(result, x.compute(scheduler="sync"))


# -- raw graphs -------------------------------------------------------------------------
LEGACY = {"x": 1, "y": (inc, "x"), "z": (add, "x", "y")}


@pytest.mark.parametrize(
    "keys", ["z", ["z"], ["z", "y"], [["z"], "y"], [["z", ["x"]], [], "y"], ["z", "z"], ["x"]]
)
def test_legacy_graph_nesting_matches_dask(keys, scheduler):
    expected = dask.threaded.get(dict(LEGACY), keys)
    result = scheduler(dict(LEGACY), keys)
    assert result == expected
    assert type(result) is type(expected)


def test_tuple_keys(scheduler):
    dsk = {("x", 0): 1, ("x", 1): (inc, ("x", 0)), ("s", 0): (add, ("x", 0), ("x", 1))}
    for keys in [("s", 0), [("s", 0), ("x", 1)], [[("s", 0)], [("x", 0)]]]:
        assert scheduler(dict(dsk), keys) == dask.threaded.get(dict(dsk), keys)
    assert scheduler(dict(dsk), ("s", 0)) == 3


def test_legacy_graph_with_nested_task_arguments(scheduler):
    dsk = {
        "a": 1,
        "b": (sum, ["a", (inc, "a"), 10]),
        "c": (dict, [["left", "a"], ["right", (add, "b", "a")]]),
        "d": (operator.getitem, "c", "right"),
    }
    assert scheduler(dsk, ["b", "d"]) == dask.threaded.get(dsk, ["b", "d"]) == (13, 14)


def test_task_spec_graph(scheduler):
    dsk = {
        "a": DataNode("a", 5),
        "b": Task("b", inc, TaskRef("a")),
        "c": Task("c", add, TaskRef("a"), TaskRef("b")),
        "d": Alias("d", "c"),
        "e": Task("e", sum, List(TaskRef("b"), TaskRef("c"), TaskRef("d"))),
    }
    assert scheduler(dsk, ["d", "e", "b"]) == (11, 28, 6)


# -- cache= -----------------------------------------------------------------------------
def test_cache_supplies_a_missing_key(scheduler):
    # A key only the cache holds must be referenced as a TaskRef: in a legacy tuple a string
    # that is not a key of the graph is a literal (dask.threaded.get reads it the same way).
    dsk = {"y": Task("y", inc, TaskRef("x")), "z": Task("z", add, TaskRef("x"), TaskRef("y"))}
    assert scheduler(dsk, ["z", "y"], cache={"x": 5}) == (11, 6)
    assert scheduler(dsk, ["z", "y"], cache={"x": 5}) == dask.threaded.get(
        dsk, ["z", "y"], cache={"x": 5}
    )


def test_cache_replaces_a_task(scheduler):
    ran = []

    def loud_inc(x):
        ran.append(x)
        return x + 1

    dsk = {"x": 1, "y": (loud_inc, "x"), "z": (add, "x", "y")}
    assert scheduler(dsk, "z", cache={"y": 100}) == 101
    assert ran == []  # the supplied key's task never ran
    assert scheduler(dsk, ["z", "x"], cache={"x": 10}) == (21, 10)
    assert ran == [10]


def test_cache_value_can_be_requested(scheduler):
    dsk = {"y": Task("y", inc, TaskRef("x"))}
    assert scheduler(dsk, ["x", "y"], cache={"x": 41}) == (41, 42)
    assert scheduler({}, ["x"], cache={"x": 41}) == (41,)


def test_cache_feeds_a_task_with_several_supplied_inputs(scheduler):
    dsk = {
        "s": Task("s", lambda *a: a, TaskRef("p"), TaskRef("q"), TaskRef("r"), TaskRef("t")),
        "t": Task("t", inc, TaskRef("p")),
    }
    assert scheduler(dsk, "s", cache={"p": 1, "q": 2, "r": 3}) == (1, 2, 3, 2)


def test_empty_request(scheduler):
    assert scheduler({}, []) == ()
