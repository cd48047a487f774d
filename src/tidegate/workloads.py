"""The seed workloads of dask/distributed#6360, on real zarr inputs written to disk.

Two inputs ``a`` and ``b`` of shape (steps, 1000, 1000) float64 in 32 MB chunks (one chunk per
4 time steps) are written once; each workload reads them with ``da.from_zarr``, combines
them the way climate pipelines do, and writes its result to zarr, so that peak memory
reflects the schedule, not a result held in memory.
"""

from __future__ import annotations

import os
from collections.abc import Callable

import dask.array as da
import numpy as np
import zarr  # at import, not in tasks: two threads importing it at once can break the import

SIDE = 1000
STEPS_PER_CHUNK = 4  # 4 x 1000 x 1000 x 8 bytes = 32 MB
CHUNK_BYTES = STEPS_PER_CHUNK * SIDE * SIDE * 8


def make_inputs(folder: str, steps: int, seed: int = 0) -> dict[str, str]:
    """Write inputs a and b (steps x 1000 x 1000 float64) as zarr arrays under ``folder``."""
    import zarr

    paths = {}
    rng = np.random.default_rng(seed)
    for name in ("a", "b"):
        path = os.path.join(folder, f"{name}.zarr")
        z = zarr.create_array(
            path,
            shape=(steps, SIDE, SIDE),
            chunks=(STEPS_PER_CHUNK, SIDE, SIDE),
            dtype="f8",
            compressors=None,  # I/O-bound reads, like a fast local disk
            overwrite=True,
        )
        for t in range(0, steps, STEPS_PER_CHUNK):
            n = min(STEPS_PER_CHUNK, steps - t)
            z[t : t + n] = rng.random((n, SIDE, SIDE))
        paths[name] = path
    return paths


def _write(x: da.Array, path: str):
    """A lazy store of x into a new zarr array (chunked like x's largest chunk)."""
    import zarr

    z = zarr.create_array(path, shape=x.shape, chunks=x.chunksize, dtype=x.dtype, overwrite=True)
    regular = all(len(set(c[:-1])) <= 1 and c[-1] <= c[0] for c in x.chunks)
    # Irregular chunks straddle zarr chunks: the lock keeps read-modify-write correct.
    return da.store(x, z, lock=not regular, compute=False)


def stack_sum(a, b, w):
    return da.stack([a, b]).sum(axis=0)


def slice_add(a, b, w):
    return a[1:] + b[1:]


def rechunk_add(a, b, w):
    target = (2 * STEPS_PER_CHUNK, SIDE // 2, SIDE)
    return a.rechunk(target) + b.rechunk(target)


def weighted(a, b, w):
    w1, w2 = w
    return w1[None] * a + w2[None] * b


def vorticity(a, b, w):
    # dv/dx - du/dy on a periodic grid: pad, difference, rechunk back to the input chunks.
    u = da.pad(a, ((0, 0), (1, 1), (0, 0)), mode="wrap")
    v = da.pad(b, ((0, 0), (0, 0), (1, 1)), mode="wrap")
    dvdx = (v[:, :, 2:] - v[:, :, :-2]) / 2
    dudy = (u[:, 2:, :] - u[:, :-2, :]) / 2
    return (dvdx - dudy).rechunk(a.chunksize)


def running_total(a, b, w):
    # A cumulative sum in time: each output chunk needs its input chunk and the previous
    # total, so consumption is sequential and loads can run far ahead of it.
    return da.cumsum(a + b, axis=0)


def anomaly(a, b, w):
    # Departure from the time mean: every input chunk is needed twice, once for the mean
    # and once after it, so without spilling all of the input is held at once.
    return a - a.mean(axis=0)


def _open_step(path: str, t: int):
    """A handle on one time step's file: tiny, like ``xr.open_dataset`` on one file."""
    return zarr.open_array(path, mode="r")


def _read_step(handle, t: int) -> np.ndarray:
    return handle[t * STEPS_PER_CHUNK : (t + 1) * STEPS_PER_CHUNK]


def _grid_field(seed: int) -> np.ndarray:
    return np.random.default_rng(seed).random((SIDE, SIDE))


def _grid_metric(w: np.ndarray) -> np.ndarray:
    return 1.0 + 0.01 * w  # a grid spacing derived from a shared grid field


def _vorticity_step(u, v, dx, dy, area):
    dvdx = (np.roll(v, -1, axis=2) - np.roll(v, 1, axis=2)) / (2 * dx)
    dudy = (np.roll(u, -1, axis=1) - np.roll(u, 1, axis=1)) / (2 * dy)
    return (dvdx - dudy) * area


def vorticity_files(inputs: dict[str, str], out_folder: str):
    """The seed's pipeline (dask/distributed#6360) as users write it: per time step one open
    per variable (a file each), a read, the vorticity against three shared grid fields, a
    store. The opens are the roots by structure; the data is held one hop below them, where
    dask's queuing no longer counts it."""
    from dask import delayed

    a = da.from_zarr(inputs["a"])
    steps = a.shape[0] // STEPS_PER_CHUNK
    grid = [delayed(_grid_metric)(delayed(_grid_field)(k, dask_key_name=f"open-grid-{g}"),
                                  dask_key_name=f"grid-{g}")
            for k, g in enumerate(("dx", "dy", "area"))]  # three shared grid chains
    blocks = []
    for t in range(steps):
        u, v = (
            delayed(_read_step)(delayed(_open_step)(inputs[n], t, dask_key_name=f"open-{n}-{t}"),
                                t, dask_key_name=f"read-{n}-{t}")
            for n in ("a", "b")
        )  # fmt: skip
        w = delayed(_vorticity_step)(u, v, *grid, dask_key_name=f"vorticity-{t}")
        blocks.append(da.from_delayed(w, (STEPS_PER_CHUNK, SIDE, SIDE), dtype="f8"))
    return _write(da.concatenate(blocks), os.path.join(out_folder, "vorticity-files.zarr"))


WORKLOADS: dict[str, Callable] = {
    "stack-sum": stack_sum,
    "slice-add": slice_add,
    "rechunk-add": rechunk_add,
    "weighted": weighted,
    "vorticity": vorticity,
    "running-total": running_total,
    "anomaly": anomaly,
}


# Workloads that open their inputs per time step themselves.
PER_FILE: dict[str, Callable] = {"vorticity-files": vorticity_files}
NAMES = sorted(WORKLOADS) + sorted(PER_FILE)


def build(name: str, inputs: dict[str, str], out_folder: str):
    """The lazy dask computation of workload ``name``: read inputs, compute, write zarr."""
    if name in PER_FILE:
        return PER_FILE[name](inputs, out_folder)
    a = da.from_zarr(inputs["a"])
    b = da.from_zarr(inputs["b"])
    rng = np.random.default_rng(1)
    w = tuple(da.from_array(rng.random((SIDE, SIDE))) for _ in range(2))
    result = WORKLOADS[name](a, b, w)
    return _write(result, os.path.join(out_folder, f"{name}.zarr"))
