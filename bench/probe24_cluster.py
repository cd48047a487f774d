"""Issue 9 probes: xarray / zarr / parquet pipelines a user would write, on a LocalCluster,
dask's queuing against tidegate's plugin. None of them is in bench/distributed.py's set.

Inputs are written once to ``--folder`` (kept between runs; ~0.75 GB): an ERA-like zarr
store (u, v: 731 days x 180 x 360 float64, 30-day chunks of 15.6 MB, xarray's defaults,
so compressed), the same u split into 8 netCDF3 files (scipy engine), and a parquet
folder (8 files, 1M rows each). Every run is measured by bench/distributed.py's ``run``
(fresh cluster, dask's spilling and pausing off, peak RSS sampled in each worker, peak
managed bytes, bytes sent between workers), modes interleaved and turned each rep.

    python bench/probe24_cluster.py --reps 3 --workers 2 --threads 1
    python bench/probe24_cluster.py --only clim-anom-store --modes queue,tidegate --reps 5
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != HERE]
sys.path.append(HERE)  # after the installed packages: bench/distributed.py as "bench_distributed"

import importlib.util

import numpy as np

_spec = importlib.util.spec_from_file_location("bench_distributed",
                                               os.path.join(HERE, "distributed.py"))
bd = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bd)

FOLDER = os.environ.get("PROBE24_FOLDER", "/tmp/probe24-inputs")
DAYS = np.arange("2000-01-01", "2002-01-01", dtype="datetime64[D]")  # 731 days
LAT = np.linspace(-89.5, 89.5, 180)
LON = np.arange(0.5, 360, 1.0)


def make_inputs(folder: str = FOLDER) -> None:
    import pandas as pd
    import xarray as xr

    os.makedirs(folder, exist_ok=True)
    era = os.path.join(folder, "era.zarr")
    if not os.path.exists(os.path.join(folder, "era.done")):
        rng = np.random.default_rng(0)
        shape = (len(DAYS), len(LAT), len(LON))
        season = np.cos(2 * np.pi * np.arange(len(DAYS)) / 365.25)[:, None, None]
        ds = xr.Dataset(
            {n: (("time", "lat", "lon"), rng.standard_normal(shape) + 10 * season)
             for n in ("u", "v")},
            coords={"time": DAYS, "lat": LAT, "lon": LON},
        ).chunk({"time": 30})
        ds.to_zarr(era, mode="w")
        for i, part in enumerate(np.array_split(np.arange(len(DAYS)), 8)):
            ds.u.isel(time=part).to_dataset().load().to_netcdf(
                os.path.join(folder, f"u-{i}.nc"), engine="scipy")
        open(os.path.join(folder, "era.done"), "w").close()
    pq = os.path.join(folder, "table.parquet")
    if not os.path.exists(os.path.join(folder, "table.done")):
        os.makedirs(pq, exist_ok=True)
        rng = np.random.default_rng(1)
        for i in range(8):
            n = 1_000_000
            pd.DataFrame({"station": rng.integers(0, 2000, n), "t": rng.standard_normal(n),
                          "q": rng.standard_normal(n), "p": rng.standard_normal(n),
                          "w": rng.standard_normal(n)}).to_parquet(
            os.path.join(pq, f"part.{i}.parquet"))
        open(os.path.join(folder, "table.done"), "w").close()


def _era():
    import xarray as xr

    return xr.open_zarr(os.path.join(FOLDER, "era.zarr"))


def _out():
    return tempfile.mkdtemp(prefix="probe24-out-", dir=FOLDER)


def clim_anom():
    """Monthly climatology and the std of the daily anomaly against it."""
    u = _era().u
    clim = u.groupby("time.month").mean()
    return (u.groupby("time.month") - clim).std("time")


def clim_anom_store():
    """The same anomaly, stored to zarr (store form)."""
    u = _era().u
    anom = (u.groupby("time.month") - u.groupby("time.month").mean()).rename("anom")
    return anom.to_dataset().to_zarr(os.path.join(_out(), "anom.zarr"), compute=False)


def resample_store():
    """Weekly means of u and v, stored."""
    return _era().resample(time="7D").mean().to_zarr(os.path.join(_out(), "w.zarr"), compute=False)


def coarsen_std():
    """A 4x4 spatial coarsening, then the std in time."""
    return _era().u.coarsen(lat=4, lon=4).mean().std("time")


def rolling_max():
    """The largest 5-day running mean per point."""
    return _era().u.rolling(time=5, center=True).mean().max("time")


def weighted_mean():
    """The area mean of wind speed with cos(lat) weights: a time series."""
    import xarray as xr

    ds = _era()
    w = np.cos(np.deg2rad(ds.lat))
    speed = np.sqrt(ds.u ** 2 + ds.v ** 2)
    return speed.weighted(w).mean(("lat", "lon"))


def concat_nc():
    """xr.concat of 8 netCDF files (each opened with chunks), then a time mean and std."""
    import xarray as xr

    parts = [xr.open_dataset(os.path.join(FOLDER, f"u-{i}.nc"), engine="scipy",
                             chunks={"time": 30}) for i in range(8)]
    u = xr.concat(parts, "time").u
    return xr.Dataset({"mean": u.mean("time"), "std": u.std("time")})


def map_blocks2():
    """da.map_blocks over two inputs (u, v), then a mean in time."""
    import dask.array as da

    ds = _era()

    def shear(a, b):
        return np.hypot(np.gradient(a, axis=-1), np.gradient(b, axis=-2))

    return da.map_blocks(shear, ds.u.data, ds.v.data, dtype="f8").mean(axis=0)


def speed_store():
    """A derived field (wind speed) stored to zarr."""
    ds = _era()
    speed = np.sqrt(ds.u ** 2 + ds.v ** 2).rename("speed")
    return speed.to_dataset().to_zarr(os.path.join(_out(), "speed.zarr"), compute=False)


def df_groupby():
    """dask.dataframe: per-station means of a parquet folder."""
    import dask.dataframe as dd

    df = dd.read_parquet(os.path.join(FOLDER, "table.parquet"))
    return df.groupby("station")[["t", "q", "p", "w"]].mean()


def df_groupby_split():
    """The same, with split_out=4 (a shuffle of the partial aggregates)."""
    import dask.dataframe as dd

    df = dd.read_parquet(os.path.join(FOLDER, "table.parquet"))
    return df.groupby("station")[["t", "q", "p", "w"]].agg(["mean", "std"], split_out=4)


WORKLOADS = {"clim-anom": clim_anom, "clim-anom-store": clim_anom_store,
             "resample-store": resample_store, "coarsen-std": coarsen_std,
             "rolling-max": rolling_max, "weighted-mean": weighted_mean,
             "concat-nc": concat_nc, "map-blocks2": map_blocks2, "speed-store": speed_store,
             "df-groupby": df_groupby, "df-groupby-split": df_groupby_split}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--only", choices=list(WORKLOADS), action="append")
    ap.add_argument("--modes", default="queue,tidegate")
    ap.add_argument("--out", default=os.path.join(HERE, "results", "probe24-cluster.json"))
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--bandwidth", type=float, default=None, help="bytes/s into each worker")
    args = ap.parse_args(argv)
    make_inputs()
    bd.WORKLOADS.update(WORKLOADS)
    bd.DEFAULT = tuple(args.only or WORKLOADS)
    rest = [f"--reps={args.reps}", f"--modes={args.modes}", f"--out={args.out}",
            f"--workers={args.workers}", f"--threads={args.threads}"]
    if args.bandwidth:
        rest.append(f"--bandwidth={args.bandwidth}")
    for w in args.only or []:
        rest.append(f"--only={w}")
    # bench/distributed.py's --only choices are fixed at its parse: they include ours now.
    bd.main(rest)


if __name__ == "__main__":
    main()
