"""stencil14: the core's decisions (tidegate.get's) on the twin's workload models, under
several codes side by side: one worker of T threads on a virtual clock, durations and
result sizes from each model (roots' sizes known before the run, as the array layers'
chunk metadata gives them to tidegate.get). Peak held bytes (the core's books) and
makespan; deterministic, independent of the machine's load.

    python bench/results/stencil14-core.py --codes NEW/src,OLD/src [--steps 60]
        [--threads 2,4] [--out FILE.json]

Workloads: the seven of tidegate.sim.workloads (32 MB chunks) and the stencil of
stencil14-twin.py (6000^2, 1000 chunks, map_overlap(np.negative).std(axis=0)) under the
namings s0-s3.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

CHILD = r"""
import heapq, json, math, sys
import numpy as np
import dask.array as da
from dask._task_spec import convert_legacy_graph
from tidegate import bridge
from tidegate.core import Finished, Run, Scheduler
from tidegate.policy import Policy
from tidegate.sim.model import build_model
from tidegate.sim.workloads import WORKLOADS, build

def run(model, threads):
    plan = bridge._Plan(convert_legacy_graph(model.dsk), list(model.keys), {})
    g = bridge.to_taskgraph(plan.tasks, plan.outputs, plan.supplied, "dfs",
                            plan.dependencies, None, None)
    known = np.array([float(model.sizes.get(k, math.nan)) for k in g.keys])
    g.size = np.where(g.root, known, np.nan)
    core = Scheduler(g, [(threads, math.inf)], Policy())
    clock, now, seq = [], 0.0, 0
    def dispatch(actions):
        nonlocal seq
        for a in actions:
            if type(a) is Run:
                seq += 1
                d = float(model.durations.get(g.keys[a.task], 1e-3))
                heapq.heappush(clock, (now + d, seq, a.task))
    dispatch(core.start())
    while clock:
        now, _, i = heapq.heappop(clock)
        batch = [i]
        while clock and clock[0][0] <= now:
            batch.append(heapq.heappop(clock)[2])
        dispatch(core.handle_many(
            [Finished(j, int(model.sizes.get(g.keys[j], 0))) for j in batch]))
    assert core.done
    return max(w.peak_held for w in core.workers), now

steps, threads = int(sys.argv[1]), [int(t) for t in sys.argv[2].split(",")]
models = {}
for name in WORKLOADS:
    w = build(name, steps, 32e6, store=False)
    models[name] = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
for n in range(4):
    a = da.random.RandomState(n).random((6000, 6000), chunks=1000)
    x = a.map_overlap(np.negative, depth=1, boundary="none").std(axis=0)
    models[f"stencil-s{n}"] = build_model(x, sizes={"overlap-var": 24402, "var": 24402})
out = {f"{name}/{t}": run(m, t) for t in threads for name, m in models.items()}
print(json.dumps(out))
"""


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--codes", required=True, help="comma-separated src folders")
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--threads", default="2,4")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    codes = args.codes.split(",")
    results = {}
    for code in codes:
        env = dict(os.environ, PYTHONPATH=code)
        out = subprocess.run([sys.executable, "-c", CHILD, str(args.steps), args.threads],
                             env=env, capture_output=True, text=True, check=True).stdout
        results[code] = json.loads(out.strip().splitlines()[-1])
    first, *others = codes
    for case, (peak, span) in results[first].items():
        row = f"{case:20s} {peak / 1e6:7.0f} MB {span:8.3f} s"
        for code in others:
            p, s = results[code][case]
            row += f" | {p / 1e6:7.0f} MB {s:8.3f} s ({peak / p:.2f}x, {span / s:.3f}x)"
        print(row)
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"command": " ".join(sys.argv), "codes": codes, "results": results}, f,
                      indent=1)


if __name__ == "__main__":
    main()
