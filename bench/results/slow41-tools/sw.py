"""Set tidegate.policy switches from env SW="NAME=V,NAME=V" then run a script's main.

    SW="SLOWER=2.0" PYTHONPATH=src python bench/results/slow41-tools/sw.py SCRIPT.py [args]
"""
import os, runpy, sys
from tidegate import policy
for kv in filter(None, os.environ.get("SW", "").split(",")):
    k, v = kv.split("=")
    assert hasattr(policy, k), k
    setattr(policy, k, float(v) if "." in v else int(v))
script = sys.argv[1]
sys.argv = sys.argv[1:]
sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
runpy.run_path(script, run_name="__main__")
