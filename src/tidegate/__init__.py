"""tidegate: memory-bounded scheduling for dask task graphs."""

from . import config  # noqa: F401  (registers tidegate.* defaults in dask.config)
from .bridge import get
from .graph import TaskGraph

__all__ = ["get", "TaskGraph", "simulate"]
__version__ = "0.1.0"


def __getattr__(name):
    # tidegate.simulate runs dask.distributed's code: imported on first use, so that
    # distributed stays an optional dependency.
    if name == "simulate":
        from .sim import simulate

        return simulate
    raise AttributeError(f"module 'tidegate' has no attribute {name!r}")
