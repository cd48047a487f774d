"""A memory budget that holds on one machine: real arrays, real RSS, real spill files.

Each budgeted run happens in a fresh process so that its peak RSS is its own.
"""

import json
import math
import os
import subprocess
import sys
import textwrap

import dask
import dask.array as da
import numpy as np
import pytest

import tidegate

RUNNER = textwrap.dedent(
    """
    import json, os, sys, time
    import dask, dask.array as da, numpy as np, tidegate
    from tidegate.measure import RSSSampler
    spill_dir, budget, case = sys.argv[1], float(sys.argv[2]), sys.argv[3]
    rng = da.random.default_rng(0)
    if case == "anomaly-std":
        x = rng.random((16000, 8000), chunks=(250, 8000))  # 1 GB in 16 MB chunks
        y = (x - x.mean(axis=0)).std(axis=0)
        chunk = 16e6
    elif case == "matmul":
        a = rng.random((4000, 4000), chunks=(1000, 1000))  # 128 MB each, 8 MB chunks
        b = rng.random((4000, 4000), chunks=(1000, 1000))
        y = (a.T @ b)[::50, ::50]
        chunk = 8e6
    with RSSSampler(0.01) as rss:
        t0 = time.perf_counter()
        stats = tidegate.RunStats()
        got = y.compute(scheduler="tidegate", num_workers=2, memory_limit=budget, stats=stats)
        wall = time.perf_counter() - t0
    want = y.compute(scheduler="threads")
    print(json.dumps({
        "close": bool(np.allclose(got, want)), "peak": rss.peak_above_baseline, "chunk": chunk,
        "wall": wall,
        "spilled": stats.bytes_spilled, "loaded": stats.bytes_loaded,
        "peak_held": stats.peak_held_bytes, "left": os.listdir(spill_dir),
    }))
    """
)


def budgeted_run(tmp_path, case, budget):
    proc = subprocess.run(
        [sys.executable, "-c", RUNNER, str(tmp_path), str(budget), case],
        capture_output=True, text=True, timeout=600,
        env={**os.environ, "DASK_TIDEGATE__SPILL_DIRECTORY": str(tmp_path)},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


# The largest footprint in chunks: x - mean and std's chunk step hold an input, an output
# and a temporary; the matmul's sum over 4 partial products holds 4 inputs and an output.
@pytest.mark.parametrize("case,budget,chunks", [("anomaly-std", 200e6, 3), ("matmul", 60e6, 5)])
def test_budget_holds_with_correct_results(tmp_path, case, budget, chunks):
    r = budgeted_run(tmp_path, case, budget)
    assert r["close"]
    assert r["left"] == []  # the spill folder is gone
    # Held results stay within the budget, bar the inputs pinned by running tasks.
    footprint = chunks * r["chunk"]
    assert r["peak_held"] <= budget + 2 * footprint
    assert r["peak"] <= budget + 2 * footprint + 64e6, r  # 2 threads; 64 MB for the allocator
    if case == "anomaly-std":
        # every input is needed twice, past the mean: the budget forces spilling
        assert r["spilled"] > 0 and r["loaded"] == r["spilled"]


def test_spill_round_trip_keeps_dtypes_and_writability(tmp_path):
    from tidegate.spill import SpillStore

    import pandas as pd

    store = SpillStore(str(tmp_path))
    values = {
        1: np.arange(1000.0).reshape(10, 100)[:, ::3],  # non-contiguous
        2: pd.DataFrame({"a": np.arange(5), "b": list("abcde")}),
        3: {"nested": [np.ones(3, dtype="i2"), "text"]},
    }
    for k, v in values.items():
        store.put(k, v)
    store.flush()
    assert len(os.listdir(store.path)) == 3
    a = store.pop(1)
    np.testing.assert_array_equal(a, values[1])
    a[0, 0] = -1  # writable after a round trip
    pd.testing.assert_frame_equal(store.pop(2), values[2])
    assert store.pop(3)["nested"][1] == "text"
    # Wanted back (or released) before its turn to be written: never touches the disk.
    store.put(4, np.ones(10))
    store.delete(4)
    store.put(5, np.ones(10))
    np.testing.assert_array_equal(store.pop(5), np.ones(10))
    store.flush()
    assert os.listdir(store.path) == []
    store.close()
    assert not os.listdir(tmp_path)


def test_unpicklable_result_that_must_spill_is_a_clear_error(tmp_path):
    import threading

    def lock_and_data(i):
        return threading.Lock(), np.ones(200_000)

    def use(pair, other):
        return float(pair[1].sum() + other[1].sum())

    parts = [dask.delayed(lock_and_data)(i) for i in range(6)]
    total = dask.delayed(sum)([dask.delayed(use)(parts[i], parts[5 - i]) for i in range(6)])
    with dask.config.set({"tidegate.spill-directory": str(tmp_path)}):
        with pytest.raises(TypeError, match="cannot be pickled"):
            total.compute(scheduler=tidegate.get, num_workers=1, memory_limit=2e6)
    assert not os.listdir(tmp_path)


def test_default_budget_is_half_the_available_memory():
    import psutil

    limit = tidegate.config.memory_limit()
    assert 0.4 < limit / psutil.virtual_memory().available < 0.6
    assert math.isinf(tidegate.config.memory_limit("none"))


def test_budgeted_run_reports_spill_stats():
    x = da.random.default_rng(1).random((2000, 2000), chunks=(100, 2000))  # 1.6 MB chunks
    y = (x - x.mean(axis=0)).sum(axis=0)
    s = tidegate.RunStats()
    got = y.compute(scheduler=tidegate.get, memory_limit=8e6, num_workers=2, stats=s)
    np.testing.assert_allclose(got, y.compute(scheduler="threads"), atol=1e-9)
    assert s.bytes_spilled > 0 and s.bytes_loaded == s.bytes_spilled
    assert s.spill_file_bytes >= s.bytes_spilled and s.spill_time > 0
