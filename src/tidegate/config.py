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
    """Bytes as a float: the process's memory (RSS) above its level at compute start stays
    within it. Accepts 4e9, "4GB", "4 GiB"; "auto" (the default) is half the memory
    available when the compute starts (inside a container or batch job with a cgroup memory
    limit, what that limit leaves); "none" is unlimited."""
    value = get("memory-limit", value)
    if value is None or value == "none":
        return math.inf
    if value == "auto":
        import psutil

        return AUTO_FRACTION * available_memory(psutil.virtual_memory().available)
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


CGROUP_FILES = (  # (limit, usage): cgroups v2, then v1
    ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
    ("/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory/memory.usage_in_bytes"),
)


def available_memory(host: float, files=CGROUP_FILES) -> float:
    """Memory available to this process: the host's (``host``), or less where this process's
    cgroup (a container, a batch job) has a memory limit: that limit less its usage. (The
    same files distributed reads for its own default, ``distributed.system``.)"""
    for limit_file, usage_file in files:
        try:
            with open(limit_file) as f:
                limit = f.read().strip()
            with open(usage_file) as f:
                usage = int(f.read().strip())
        except (OSError, ValueError):
            continue
        if limit == "max" or not limit.isdigit() or int(limit) >= 2**60:
            return host  # no limit (v1 says so with a huge number)
        return max(0.0, min(host, float(int(limit) - usage)))
    return host
