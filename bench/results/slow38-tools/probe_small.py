"""Run wall29_small.py in-process (BENCH: the bench/ copy, default bench) with
Plugin._slower and Placement._faster counting their asks and yes answers; arguments as
wall29_small.py's.

    BENCH=/tmp/NAME/bench PYTHONPATH=src python bench/results/slow38-tools/probe_small.py --only ...
"""
import collections, os, runpy, sys
BENCH = os.environ.get("BENCH", "bench")
sys.path.insert(0, BENCH)
from tidegate.distributed import hooks, placement
count = collections.Counter()
orig = hooks.Plugin._slower
def _slower(self, group, addr, other):
    r = orig(self, group, addr, other)
    count["asked"] += 1
    count["yes"] += bool(r)
    return r
hooks.Plugin._slower = _slower
of = placement.Placement._faster
def _faster(self, ts, p):
    r = of(self, ts, p)
    count["faster_asked"] += 1
    count["faster_yes"] += r is not None
    return r
placement.Placement._faster = _faster
sys.argv = ["wall29_small.py"] + sys.argv[1:]
try:
    runpy.run_path(os.path.join(BENCH, "wall29_small.py"), run_name="__main__")
finally:
    print("PROBE", dict(count), file=sys.stderr)
