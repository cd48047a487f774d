"""Run wall29_small with a counter on Placement._paced_keeps (True answers) and _by_pace."""
import atexit, os, sys, collections
sys.path.insert(0, "/tmp/slow41/bench")
from tidegate.distributed import placement as P
C = collections.Counter()
o = P.Placement._paced_keeps
def pk(self, *a):
    r = o(self, *a)
    C["paced_keeps_true" if r else "paced_keeps_false"] += 1
    return r
P.Placement._paced_keeps = pk
atexit.register(lambda: print("COUNTS", dict(C), file=sys.stderr))
import runpy
sys.argv = ["/tmp/slow41/bench/wall29_small.py"] + sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
