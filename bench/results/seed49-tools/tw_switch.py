"""bench/twin_workloads.py with a policy switch set first (README's twin table A/B):
    python tw_switch.py NAME=VALUE [twin_workloads args ...]"""
import ast
import os
import runpy
import sys

from tidegate import policy

name, value = sys.argv[1].split("=")
setattr(policy, name, ast.literal_eval(value))
bench = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.argv = [os.path.join(bench, "twin_workloads.py")] + sys.argv[2:]
runpy.run_path(sys.argv[0], run_name="__main__")
