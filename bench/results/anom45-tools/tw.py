# anom45: bench/twin_workloads.py with policy.SPLIT_WOKEN set (python tw.py 0|1 --workers 100 --only anomaly ...)
import sys, runpy
from tidegate import policy
policy.SPLIT_WOKEN = int(sys.argv.pop(1))
import os; sys.argv[0] = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "twin_workloads.py")
runpy.run_path(sys.argv[0], run_name="__main__")
