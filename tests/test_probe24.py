"""probe24 (issue 9, usability): a fraction budget on workers that have no memory_limit."""

import logging

import dask
import distributed
import numpy as np
import pytest
import xarray as xr
from distributed import Client

import tidegate.distributed as td
from tidegate.testing import QUIET_MEMORY

pytest.importorskip("zarr")

SAID = "has none: its budget is unlimited"


def _weekly_means(tmp_path):
    days = np.arange("2000-01-01", "2000-03-01", dtype="datetime64[D]")
    ds = xr.Dataset({"u": (("time", "x"), np.arange(len(days) * 50.0).reshape(-1, 50))},
                    coords={"time": days})
    ds.chunk({"time": 10}).to_zarr(tmp_path / "u.zarr")
    return xr.open_zarr(tmp_path / "u.zarr").u.resample(time="7D").mean(), ds


@pytest.mark.parametrize("worker_limit", [0, "1GB"])
def test_a_fraction_of_no_worker_limit_is_said(tmp_path, caplog, worker_limit):
    """Plugin(memory_limit=0.5) on LocalCluster(memory_limit=0) (the README's recipe for
    dask's memory manager turned off) ran with no budget and said nothing. Now a warning
    names each worker; a worker with a limit gets its share, silently."""
    weekly, ds = _weekly_means(tmp_path)
    with caplog.at_level(logging.WARNING, logger="tidegate.distributed"), \
            dask.config.set(QUIET_MEMORY), td.LocalCluster(
                n_workers=2, threads_per_worker=1, processes=True, memory_limit=worker_limit,
                dashboard_address=":0", plugin=td.Plugin(memory_limit=0.5)) as cluster, \
            Client(cluster) as client:  # fmt: skip
        out = weekly.compute()
        budgets = client.run_on_scheduler(lambda dask_scheduler: {
            w: b.budget for w, b in dask_scheduler.plugins["tidegate"].books.workers.items()})
    np.testing.assert_allclose(out.values, ds.u.resample(time="7D").mean().values)
    said = [r.getMessage() for r in caplog.records if SAID in r.getMessage()]
    assert len(budgets) == 2
    if worker_limit == 0:
        assert all(b == float("inf") for b in budgets.values())
        assert sorted(m.split("worker ")[1].split(" ")[0] for m in said) == sorted(budgets)
    else:
        assert all(b == 0.5 * 1e9 for b in budgets.values()), budgets
        assert said == []
