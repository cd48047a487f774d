"""A seed workload's small twin cells (build(), store form) with policy switches at two
settings: queue once per naming, then tidegate with the ``--old`` and ``--new`` switches.

Kept from the anomaly helpers' copies (seed50's, anom51's, anom52's cells.py). Per steps x
shape, over ``--seeds`` seeds: tidegate / queue time median [max], peak median [max], bytes
median, for each side, and SAME where both sides' runs are identical.

    PYTHONPATH=src python bench/twin_cells.py --steps 6,12,24,48 \\
        --shapes 2x2,2x4,4x2,4x4,8x2 --old KEPT_SHARE=0 --new KEPT_SHARE=3
    ... --name rechunk-add --chunk 50e6 --kw "dict(bandwidth=200e6)"
"""

from __future__ import annotations

import argparse
import ast
import statistics


def sets(items):
    """[(NAME, value)] from NAME=VALUE strings (a Python literal each)."""
    return [(k, ast.literal_eval(v)) for k, v in (x.split("=", 1) for x in items)]


def main():
    from tidegate import policy
    from tidegate.sim import simulate
    from tidegate.sim.workloads import build

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--name", default="anomaly")
    ap.add_argument("--steps", default="6")
    ap.add_argument("--shapes", default="2x4")
    ap.add_argument("--chunk", type=float, default=190e6)
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--old", action="append", default=[], help="NAME=VALUE (repeatable)")
    ap.add_argument("--new", action="append", default=[], help="NAME=VALUE (repeatable)")
    ap.add_argument("--kw", default="{}", help="simulate's keywords, a dict expression")
    a = ap.parse_args()
    kw = eval(a.kw)  # (a command line's own expression, as the helpers' tools took it)
    for steps in map(int, a.steps.split(",")):
        model = build(a.name, steps, a.chunk, store=True).model()
        for shape in a.shapes.split(","):
            w, t = map(int, shape.split("x"))
            rows = {"old": [], "new": []}
            for seed in range(a.seeds):
                q, = simulate(model, workers=w, threads_per_worker=t, seed=seed,
                              policy=["queue"], record_memory=False, processes=1, **kw)
                for side, switches in (("old", sets(a.old)), ("new", sets(a.new))):
                    saved = [(k, getattr(policy, k)) for k, _ in switches]
                    for k, v in switches:
                        setattr(policy, k, v)
                    try:
                        d, = simulate(model, workers=w, threads_per_worker=t, seed=seed,
                                      policy=["tidegate"], record_memory=False, processes=1,
                                      **kw)  # fmt: skip
                    finally:
                        for k, v in saved:
                            setattr(policy, k, v)
                    rows[side].append((d.makespan / q.makespan,
                                       max(d.peak_memory_per_worker)
                                       / max(q.peak_memory_per_worker),
                                       d.bytes_transferred / max(q.bytes_transferred, 1)))
            o, n = rows["old"], rows["new"]
            print(f"{a.name} {steps} {shape} {'SAME' if o == n else 'moved'}: "
                  f"old {_cell(o)} | new {_cell(n)}", flush=True)


def _cell(runs):
    time, peak, moved = zip(*runs)
    return (f"time {statistics.median(time):.3f} [{max(time):.3f}] peak "
            f"{statistics.median(peak):.3f} [{max(peak):.3f}] bytes "
            f"{statistics.median(moved):.2f}")


if __name__ == "__main__":
    main()
