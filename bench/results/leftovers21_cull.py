"""TaskGraph.from_dependencies(cull=True) on a 300k-task graph, this tree against a base.

    python bench/results/leftovers21_cull.py --against /tmp/leftovers21-base/src [--reps 5]

Graph: 100k chunks of load -> stencil (its load and the next) -> out (300k tasks). "cull":
the outputs are the first 2/3 of the out tasks (100,001 tasks culled); "whole": all of them.
Each (tree, case, rep) runs in a fresh subprocess, interleaved; wall and CPU (process) time
of the build alone. Prints medians of the reps and min-max.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

CHILD = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
from tidegate.graph import TaskGraph
n = 100_000
deps = {}
for i in range(n):
    deps[("load", i)] = []
for i in range(n):
    deps[("stencil", i)] = [("load", i), ("load", min(i + 1, n - 1))]
for i in range(n):
    deps[("out", i)] = [("stencil", i)]
outs = [("out", i) for i in range(n if sys.argv[2] == "whole" else 2 * n // 3)]
w, c = time.perf_counter(), time.process_time()
g = TaskGraph.from_dependencies(deps, outs, cull=True)
w, c = time.perf_counter() - w, time.process_time() - c
print(json.dumps({"wall": w, "cpu": c, "tasks": len(g), "prio": int(g.priority.sum() % 1000003)}))
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--against", required=True, help="the base's src folder")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--out", default=None, help="JSON of every run")
    a = ap.parse_args()
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "src")
    trees = {"base": a.against, "new": os.path.abspath(here)}
    runs = []
    for rep in range(a.reps):
        for case in ("cull", "whole"):
            for tree, path in (trees.items() if rep % 2 == 0 else reversed(trees.items())):
                out = subprocess.run([sys.executable, "-c", CHILD, path, case], check=True,
                                     capture_output=True, text=True, env={**os.environ, "PYTHONPATH": path})
                runs.append({"tree": tree, "case": case, "rep": rep, **json.loads(out.stdout)})
    for case in ("cull", "whole"):
        for tree in trees:
            rs = [r for r in runs if r["tree"] == tree and r["case"] == case]
            walls, cpus = [r["wall"] for r in rs], [r["cpu"] for r in rs]
            print(f"{case:5} {tree:4} tasks={rs[0]['tasks']} prio-check={rs[0]['prio']} "
                  f"wall median {statistics.median(walls):.3f} s ({min(walls):.3f}-{max(walls):.3f}) "
                  f"cpu median {statistics.median(cpus):.3f} s ({min(cpus):.3f}-{max(cpus):.3f})")
    print("load:", " ".join(f"{x:.2f}" for x in os.getloadavg()))
    if a.out:
        with open(a.out, "w") as f:
            json.dump(runs, f, indent=1)


if __name__ == "__main__":
    main()
