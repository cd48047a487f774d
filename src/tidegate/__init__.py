"""tidegate: memory-bounded scheduling for dask task graphs."""

import dask.base

from . import config  # noqa: F401  (registers tidegate.* defaults in dask.config)
from .bridge import get
from .config import limits
from .graph import TaskGraph
from .local import RunStats, collect_stats
from .progress import Progress
from .recording import record
from .report import report  # the function; the module stays importable as tidegate.report

# scheduler="tidegate" in compute() and dask.config.set, like "threads" or "sync".
dask.base.named_schedulers["tidegate"] = get

# dask's compute() imports distributed, when installed, before it calls any scheduler: the
# first compute of a process grew by 11 MB that memory_limit's baseline (taken when
# tidegate.get starts) could not see, and a 48 MB limit read 1.12x. Done at import instead,
# where it costs the same (0.36 s) once.
_distributed_available = getattr(dask.base, "_distributed_available", None)
if _distributed_available is not None:
    _distributed_available()
else:  # a dask without that private helper: import distributed, where installed, alike
    import importlib.util

    if importlib.util.find_spec("distributed") is not None:
        import distributed  # noqa: F401

__all__ = ["get", "limits", "RunStats", "TaskGraph", "Progress", "record", "report", "simulate"]
__version__ = "0.1.0"


def __getattr__(name):
    # tidegate.simulate runs dask.distributed's code: imported on first use, so that
    # distributed stays an optional dependency.
    if name == "simulate":
        from .sim import simulate

        return simulate
    raise AttributeError(f"module 'tidegate' has no attribute {name!r}")
