"""issue 9 (res27): resample("7D").mean().to_zarr over 30-day zarr chunks on a LocalCluster.
Weeks straddle the chunks; a load completing a straddled week passed the in-flight count,
though the week's waiting input is a reduction (a mean_chunk), so completing it freed no
slot (policy.frees_slot, policy.FREES_SLOT)."""

import numpy as np
import pytest

xr = pytest.importorskip("xarray")
pytest.importorskip("zarr")
pytest.importorskip("distributed")

import dask  # noqa: E402
from distributed import Client, WorkerPlugin  # noqa: E402

import tidegate.distributed as td  # noqa: E402
import tidegate.policy as P  # noqa: E402
from tidegate.testing import QUIET_MEMORY  # noqa: E402

DAYS = np.arange(np.datetime64("2000-01-01"), np.datetime64("2002-01-01"))  # 731


class _LoadsAlive(WorkerPlugin):
    """Most loads (``open_dataset-*`` chunks) held at once on each worker."""

    name = "res27-loads"

    def setup(self, worker):
        self.worker = worker
        self.alive = set()
        self.most = 0

    def transition(self, key, start, finish, **kw):
        if not str(key).startswith("('open_dataset-"):
            return
        if finish == "memory":
            self.alive.add(key)
        elif start == "memory":
            self.alive.discard(key)
        self.most = max(self.most, len(self.alive))


def _most(dask_worker):
    return dask_worker.plugins["res27-loads"].most


def _run(tmp_path):
    rng = np.random.default_rng(0)
    ds = xr.Dataset({n: (("time", "y", "x"), rng.standard_normal((len(DAYS), 90, 180)))
                     for n in "uv"}, coords={"time": DAYS}).chunk({"time": 30})  # fmt: skip
    ds.to_zarr(tmp_path / "in.zarr")
    weekly = xr.open_zarr(tmp_path / "in.zarr").resample(time="7D").mean()
    stored = weekly.to_zarr(tmp_path / "out.zarr", compute=False)
    with dask.config.set(QUIET_MEMORY), td.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, memory_limit=0,
            dashboard_address=":0") as cluster, Client(cluster) as client:  # fmt: skip
        client.register_plugin(_LoadsAlive())
        client.compute(stored).result()
        most = client.run(_most)
        errors = client.run_on_scheduler(
            lambda dask_scheduler: list(dask_scheduler.plugins["tidegate"].errors))
    out = xr.open_zarr(tmp_path / "out.zarr")
    np.testing.assert_allclose(out.u.values, ds.u.resample(time="7D").mean().values)
    return most, errors


def test_resample_store_holds_no_more_loads_than_its_cap_and_one(tmp_path):
    """A one-thread worker (cap 2) holds at most 3 loads at once (LocalCluster 2 x 1 of
    probe24's store: main held 4-5, dask's queuing 2-3; the twin at that geometry: main
    70.5 MB against queuing's 41.5, now 41.5). Counted on the workers, loads in memory.
    Fails on main (policy.FREES_SLOT = 0: 4-5 loads)."""
    assert P.FREES_SLOT == 3
    most, errors = _run(tmp_path)
    assert errors == []
    assert len(most) == 2
    assert max(most.values()) <= 3, most
