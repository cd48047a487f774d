"""tidegate: memory-bounded scheduling for dask task graphs."""

from . import config  # noqa: F401  (registers tidegate.* defaults in dask.config)
from .bridge import get
from .graph import TaskGraph
from .progress import Progress
from .recording import record
from .report import report  # note: the name tidegate.report is this function; the module is tidegate.report in sys.modules

__all__ = ["get", "TaskGraph", "Progress", "record", "report"]
__version__ = "0.1.0"
