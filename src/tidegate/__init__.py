"""tidegate: memory-bounded scheduling for dask task graphs."""

from . import config  # noqa: F401  (registers tidegate.* defaults in dask.config)
from .bridge import get
from .graph import TaskGraph
from .sim import simulate

__all__ = ["get", "TaskGraph", "simulate"]
__version__ = "0.1.0"
