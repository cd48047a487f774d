"""tidegate: memory-bounded scheduling for dask task graphs."""

from . import config  # noqa: F401  (registers tidegate.* defaults in dask.config)
from .bridge import get
from .graph import TaskGraph

__all__ = ["get", "TaskGraph"]
__version__ = "0.1.0"
