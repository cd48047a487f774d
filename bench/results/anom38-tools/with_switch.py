"""Run a bench script with policy switches set: with_switch.py NAME=VALUE[,NAME=VALUE] script.py args...
(e.g. BROADCAST_LEARN=0 bench/plugin_fingerprints.py out.json --compare ...)"""
import runpy
import sys

from tidegate import policy

for kv in sys.argv[1].split(","):
    k, v = kv.split("=")
    assert hasattr(policy, k), k
    setattr(policy, k, type(getattr(policy, k))(float(v)) if "." in v else int(v))
sys.argv = sys.argv[2:]
runpy.run_path(sys.argv[0], run_name="__main__")
