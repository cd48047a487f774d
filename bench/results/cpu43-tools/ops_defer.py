"""(cpu43) bench/plugin_ops.py with trim.DEFER_FULL set first:
python ops_defer.py 0|1 [plugin_ops args] (run from the worktree root)."""
import runpy
import sys

value = int(sys.argv.pop(1))
from tidegate.distributed import trim  # noqa: E402

trim.DEFER_FULL = bool(value)
sys.argv[0] = "bench/plugin_ops.py"
runpy.run_path("bench/plugin_ops.py", run_name="__main__")
