"""tidegate's settings live in dask.config under ``tidegate.*`` (defaults in tidegate.yaml)."""

from __future__ import annotations

import math
import numbers
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
    return size(value)


def size(value, fractions: bool = False) -> float:
    """A memory_limit -> bytes as a float, one rule for both runtimes: a string is always a
    size ("4GB", "1e9", "1B"), a number > 1 is bytes, and a number in (0, 1] is a fraction
    of each worker's memory_limit (``fractions``: the plugin's) or refused (the thread
    runtime's); ValueError naming the value and the accepted forms otherwise."""
    forms = "bytes (4e9) or a string with a unit ('4GB')" + (
        ", a number in (0, 1] for a fraction of each worker's memory_limit, or None for "
        "unlimited" if fractions else "")
    if isinstance(value, str):
        try:
            if not value.strip():
                raise ValueError("empty")
            parsed = parse_bytes(value)
        except (ValueError, KeyError, OverflowError) as exc:  # "1e400" overflows int()
            raise ValueError(f"memory_limit={value!r} is not a size; use {forms}") from exc
        try:
            bare = float(value)
        except ValueError:
            bare = None
        # "1" or "0.5": dask's Worker(memory_limit=) reads a fraction, parse_bytes bytes.
        if bare is not None and 0 < bare <= 1:
            raise ValueError(f"memory_limit={value!r} is ambiguous (a fraction or bytes?); "
                             f"a string is always a size: use {forms}")
        if not parsed >= 1:  # "-3GB", "0"
            raise ValueError(f"memory_limit={value!r} is under one byte; use {forms}")
        return float(parsed)
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not value > 0:
        raise ValueError(f"memory_limit must be {forms}, got {value!r}")
    if not fractions and value <= 1:  # a share on a cluster: never (half) a byte here
        raise ValueError(f"memory_limit={value!r} is a fraction only on a cluster; use {forms}")
    return float(value)


def count(value, name: str, low: int = 1) -> int:
    """A whole number >= ``low`` (``simulate(workers=)``, ...); ValueError naming it."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    return int(value)


def rate(value, name: str = "bandwidth") -> float:
    """Bytes/s > 0 (``math.inf``: no limit): a number, or a size string with an optional
    "/s" ("1GB/s", "200MB"). One rule for ``simulate()`` and the command line."""
    forms = "bytes per second > 0: a number (1e9) or a string with a unit ('1GB/s')"
    try:
        if isinstance(value, bool):
            raise TypeError("a bool")
        if isinstance(value, str):
            text = value.strip().removesuffix("/s").strip()
            if not text:  # parse_bytes reads "" as 1 byte: "", " " and "/s" were 1 B/s
                raise ValueError("no number")
            value_ = float(parse_bytes(text))
        else:
            value_ = float(value)
    except (ValueError, KeyError, TypeError, OverflowError) as exc:
        raise ValueError(f"{name}={value!r} is not a rate; use {forms}") from exc
    if not value_ > 0:  # (also nan)
        raise ValueError(f"{name}={value!r} must be {forms}")
    return value_


def duration(value, name: str, zero_ok: bool = True, example: tuple = ("0.001", "1ms")) -> float:
    """Seconds, finite, >= 0 (> 0 unless ``zero_ok``): a number, a timedelta or a string
    with a unit ("1ms"). One rule for ``simulate()``, the command line and the plugin's
    ``interval``; ``example``: (seconds, string) the message suggests."""
    from dask.utils import parse_timedelta

    forms = (f"a duration {'>= 0' if zero_ok else '> 0'}: seconds ({example[0]}) or a string "
             f"with a unit ('{example[1]}')")
    try:
        if isinstance(value, bool):
            raise TypeError("a bool")
        # (a number as is: parse_timedelta garbles a negative one into "1-1")
        seconds = float(value) if isinstance(value, numbers.Real) else parse_timedelta(value)
    except (ValueError, KeyError, TypeError, IndexError, OverflowError, AttributeError) as exc:
        raise ValueError(f"{name}={value!r} is not a duration; use {forms}") from exc
    if seconds is None or not (0 <= seconds if zero_ok else 0 < seconds) \
            or math.isinf(seconds):  # fmt: skip
        raise ValueError(f"{name}={value!r} must be {forms}")
    return float(seconds)


def num_workers(value=None) -> int:
    value = get("num-workers", value)
    if value is None:
        value = dask.config.get("num_workers", None) or os.cpu_count() or 1
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"num_workers must be an integer >= 1, got {value!r}")
    return int(value)


def flag(name: str) -> bool:
    """``tidegate.<name>``, true or false (YAML's and dask's environment variables' booleans;
    0 and 1 too); any other value is a ValueError: bool("no") is true."""
    value = get(name)
    if isinstance(value, bool) or (isinstance(value, numbers.Integral) and value in (0, 1)):
        return bool(value)
    raise ValueError(f"tidegate.{name} must be true or false, got {value!r}")


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
