"""model14 (issue 9): the twin's default task durations per group, old model vs new, for
every twin workload (tidegate.sim.workloads, store=True and False) and the stencil of
bench/results/stencil14-twin.py; each model is built in a child process with its own
PYTHONPATH, side by side in one run. Prints the groups whose median duration (or size)
moved; writes JSON.

    PYTHONPATH=$PWD/src python bench/results/model14-durations.py --old /tmp/model14-base/src \
        [--steps 8] [--out bench/results/model14-durations.json]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

CHILD = r"""
import json, statistics, sys
from collections import defaultdict
import dask.array as da, numpy as np
from dask.utils import key_split
from tidegate.sim.model import build_model
from tidegate.sim.workloads import WORKLOADS, build
steps = int(sys.argv[1])
out = {}
def groups(m):
    g = defaultdict(lambda: ([], []))
    for k in m.dsk:
        name = k[0] if type(k) is tuple else k
        d, s = g[key_split(name)]
        d.append(m.durations[k]); s.append(m.sizes[k])
    return {n: dict(tasks=len(d), duration=statistics.median(d), size=statistics.median(s))
            for n, (d, s) in g.items()}
for name in WORKLOADS:
    for store in (False, True):
        out[f"{name}{'/store' if store else ''}"] = groups(build(name, steps, 20e6, store=store).model())
a = da.random.RandomState(0).random((6000, 6000), chunks=1000)
x = a.map_overlap(np.negative, depth=1, boundary="none").std(axis=0)
out["stencil"] = groups(build_model(x, sizes={"overlap-var": 24402, "var": 24402}))
json.dump(out, sys.stdout)
"""


def model_of(src: str, steps: int) -> dict:
    env = dict(os.environ, PYTHONPATH=src, PYTHONHASHSEED="0")
    res = subprocess.run([sys.executable, "-c", CHILD, str(steps)], env=env, check=True,
                         capture_output=True, text=True)
    return json.loads(res.stdout)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", required=True)
    ap.add_argument("--new", default=os.path.abspath("src"))
    ap.add_argument("--steps", type=int, default=8)
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    old, new = model_of(args.old, args.steps), model_of(args.new, args.steps)
    rows = []
    for wl in new:
        for g, n in new[wl].items():
            o = old[wl].get(g)
            if o is None or o["duration"] != n["duration"] or o["size"] != n["size"]:
                rows.append(dict(workload=wl, group=g, tasks=n["tasks"], old=o, new=n))
                od = f"{o['duration'] * 1e3:7.2f}" if o else "      -"
                os_ = f"{o['size']:>10.0f}" if o else "-"
                print(f"{wl:20s} {g:28s} x{n['tasks']:<4d} duration {od} -> "
                      f"{n['duration'] * 1e3:7.2f} ms  size {os_} -> {n['size']:.0f}")
    print(f"{len(rows)} groups moved of {sum(len(v) for v in new.values())}")
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"command": " ".join(sys.argv), "rows": rows, "old": old, "new": new}, f,
                      indent=1)


if __name__ == "__main__":
    main()
