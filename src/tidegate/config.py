"""tidegate's settings live in dask.config under ``tidegate.*`` (defaults in tidegate.yaml)."""

from __future__ import annotations

import math
import os

import dask.config
import yaml
from dask.utils import parse_bytes

_fn = os.path.join(os.path.dirname(__file__), "tidegate.yaml")
with open(_fn) as f:
    defaults = yaml.safe_load(f)
dask.config.update_defaults(defaults)

ORDERS = ("dfs", "dask")


def get(name: str, value=None):
    """An explicit value wins; else ``tidegate.<name>`` from dask.config."""
    return dask.config.get(f"tidegate.{name}") if value is None else value


AUTO_FRACTION = 0.5


def memory_limit(value=None) -> float:
    """Bytes per worker as a float. Accepts 4e9, "4GB", "4 GiB"; "auto" (the default) is
    half the memory available when the compute starts, leaving the other half for what a
    budget does not count (temporaries inside running tasks, the allocator's slack);
    "none" is unlimited."""
    value = get("memory-limit", value)
    if value is None or value == "none":
        return math.inf
    if value == "auto":
        import psutil

        return AUTO_FRACTION * psutil.virtual_memory().available
    if isinstance(value, str):
        try:
            value = parse_bytes(value)
        except (ValueError, KeyError) as exc:
            raise ValueError(
                f"memory_limit={value!r} is not a size; use bytes or a string like '4GB'"
            ) from exc
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise ValueError(f"memory_limit must be a size > 0 (bytes or '4GB'), got {value!r}")
    return float(value)


def num_workers(value=None) -> int:
    value = get("num-workers", value)
    if value is None:
        value = dask.config.get("num_workers", None) or os.cpu_count() or 1
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"num_workers must be an integer >= 1, got {value!r}")
    return value


def order(value=None) -> str:
    value = get("order", value)
    if value not in ORDERS:
        raise ValueError(f"order must be one of {', '.join(ORDERS)}, got {value!r}")
    return value


def current_limits() -> dict:
    """``tidegate.limits`` now: ``{name: tasks running at once}`` (checked by the body)."""
    return dict(dask.config.get("tidegate.limits", None) or {})


def limits(mapping: dict):
    """Concurrency limits for ``dask.annotate(tidegate_limit=name)``: sets dask.config's
    ``tidegate.limits`` (merged over the current ones). Use as a context manager::

        with tidegate.limits({"s3-read": 8}):
            x.compute(scheduler="tidegate")

    (Like ``dask.config.set``, it takes effect at once; ``with`` restores on exit.) Each
    limit must be an integer >= 1; refused here, before anything runs."""
    from .annotations import check_limits

    merged = {**current_limits(), **check_limits(mapping)}
    return dask.config.set({"tidegate.limits": merged})
