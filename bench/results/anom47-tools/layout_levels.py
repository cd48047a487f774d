"""bench/twin_anomaly_layout.py with the tree's levels named (L1..L4 for the mean's
partials, by their first appearance order in the graph) and the loads per worker
counted: ``--set NAME=V`` sets a policy switch first.

    PYTHONPATH=src python bench/results/anom47-tools/layout_levels.py --steps 1000 \
        --workers 100 --top 4 [--set COMBINE_LEVELS=0]
"""
import os
import sys
from collections import Counter

here = os.path.dirname(os.path.abspath(__file__))
bench = os.path.dirname(os.path.dirname(here))
sys.path.insert(0, bench)
from dask.utils import key_split  # noqa: E402

import twin_anomaly_layout as tal  # noqa: E402
from tidegate import policy  # noqa: E402

levels = {}


def short(key):
    if isinstance(key, tuple):
        name = key[0]
        if "partial" in name:
            tok = name.rsplit("-", 1)[-1]
            lv = levels.setdefault(tok, None)
            return f"L{lv or '?'}:{tok[:4]}{key[1:2]}"
        return f"{key_split(name)[:10]}{key[1:2]}"
    return key_split(key)[:14]


argv = sys.argv[1:]
while "--set" in argv:
    i = argv.index("--set")
    k, v = argv[i + 1].split("=")
    setattr(policy, k, type(getattr(policy, k))(float(v)))
    del argv[i:i + 2]
naming = 0
if "--naming" in argv:
    i = argv.index("--naming")
    naming = int(argv[i + 1])
    del argv[i:i + 2]
import dask.array as da  # noqa: E402
from tidegate.sim import workloads as wl  # noqa: E402
if naming:
    wl._open = lambda name, shape, chunks, s=f"-n{naming}": da.from_array(
        wl.NoData(shape), chunks=chunks, name=f"open-{name}{s}")
from tidegate.sim.workloads import build  # noqa: E402
steps = int(argv[argv.index("--steps") + 1])
w = build("anomaly", steps, 190e6, store=False)
from dask._task_spec import convert_legacy_graph  # noqa: E402
g = convert_legacy_graph(dict(w.graph.__dask_graph__()))
# a partial's level: 1 + its first input's level (chunk-means: 0)
lvl = {}
for k, t in g.items():
    if isinstance(k, tuple) and "partial" in k[0] and k[1:] == (0, 0, 0):
        d = min(t.dependencies)
        lvl[k[0]] = d[0]
def level(name):
    n = 1
    while name in lvl and "partial" in lvl[name][0] if False else False:
        pass
    depth, cur = 1, lvl[name]
    while "partial" in cur:
        depth, cur = depth + 1, lvl[cur]
    return depth
for name in lvl:
    levels[name.rsplit("-", 1)[-1]] = level(name)
tal._short = short
counts = Counter()
orig_ended = None
tal.main(argv)
