"""(cpu41) bench/plugin_ops.py with policy switches set first: python ops_switch.py NAME=V[,NAME=V] [plugin_ops args]
(run from the worktree root)."""
import sys, runpy
sw = sys.argv.pop(1)  # NAME=VALUE,...
from tidegate import policy
for kv in sw.split(","):
    if kv:
        k, v = kv.split("="); setattr(policy, k, int(v))
sys.argv[0] = "bench/plugin_ops.py"
runpy.run_path("bench/plugin_ops.py", run_name="__main__")
