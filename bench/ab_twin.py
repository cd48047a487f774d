"""A paired A/B of policy switches in the twin: wall29_small.py's cells, tidegate with the
switches at OLD and at NEW values, queue alongside, over namings x seeds, in one process
(sessions 31-34's ab.py made a tool). One process because the seed-* workloads' store tokens
change per process: base and branch runs in two processes differ for no reason; here both
sides see the same keys and share each (naming, seed)'s queue run.

    python bench/ab_twin.py --only seed-anomaly --shapes 2x2 --switch HANDLE_PLAN --old 0 --new 7
        [--switch A --old 0 --new 1 ... or --switch A,B --old 0,0 --new 1,2: several switches]
        [--lags 0.002,0.01] [--namings 3] [--seeds 3] [--outgoing BYTES/S] [--patch FILE.py]
        [--over 1.05,1.05,1.0001] [-v: a line per run] [--json OUT.json]

A switch is a module-level name of tidegate.policy or MODULE.NAME (tidegate.core.WIDE); values
are Python literals (0, 2.5, True; inf and nan too), 0 / 1 for a True / False switch. Per cell:
SAME (every NEW run's makespan, peaks per worker and bytes moved equal OLD's) or "moved k/n",
then per side tidegate / queue time, peak and bytes moved, median [min-max] over the runs, and
how many runs are over --over's peak, time and bytes ratios. The switches get their values
back at the end; --patch files are exec'd first (wall29_small.patch) and stay.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import importlib
import json
import math
import os
import statistics
import sys

_here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, _here)
try:
    import wall29_small as S  # (takes bench/ off sys.path: bench/distributed.py is not the package)
finally:
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _here]

MEASURES = ("time", "peak", "moved")


def switch(name: str):
    """(module, attribute) of a switch: NAME of tidegate.policy, or MODULE.NAME."""
    mod, _, attr = name.rpartition(".")
    module = importlib.import_module(mod or "tidegate.policy")
    if not hasattr(module, attr):
        raise SystemExit(f"no switch {attr} in {module.__name__}")
    return module, attr


def value(old, text: str):
    """``text`` as a Python literal (inf / nan as floats); 0 / 1 as False / True when the
    switch ``old`` is a bool."""
    try:
        v = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        v = float(text)  # inf, nan; anything else is an error worth seeing
    if isinstance(old, bool) and v in (0, 1):
        v = bool(v)
    return v


def settings(names: list[str], olds: list[str], news: list[str]) -> list[tuple]:
    """[(module, attribute, first value, OLD, NEW)] from the --switch / --old / --new lists
    (each given once per switch or comma separated)."""
    split = [[x for s in xs for x in s.split(",")] for xs in (names, olds, news)]
    if len({len(xs) for xs in split}) != 1:
        raise SystemExit(f"--switch, --old and --new differ in length: {split}")
    out = []
    for n, o, v in zip(*split):
        module, attr = switch(n)
        first = getattr(module, attr)
        out.append((module, attr, first, value(first, o), value(first, v)))
    return out


@contextlib.contextmanager
def switched(sw: list):
    """The switches of :func:`settings` given their first values back after the block."""
    try:
        yield
    finally:
        for module, attr, first, *_ in sw:
            setattr(module, attr, first)


def put(sw: list, side: int) -> None:
    """Each switch at its OLD (side 1) or NEW (side 2) value."""
    for module, attr, *values in sw:
        setattr(module, attr, values[side])


def dump(out: dict, path) -> dict:
    """``out`` as JSON to ``path`` where given; ``out``."""
    if path:
        with open(path, "w") as f:
            json.dump(out, f, indent=1)
        print(f"wrote {path}")
    return out


def ratios(d, q) -> tuple[float, float, float]:
    """tidegate / queue (time, peak of the busiest worker, bytes moved) of one run."""
    qb, db = q.bytes_transferred, d.bytes_transferred
    return (d.makespan / q.makespan,
            max(d.peak_memory_per_worker) / max(q.peak_memory_per_worker),
            db / qb if qb else (1.0 if not db else math.inf))


def summary(rows: list, over: tuple) -> dict:
    """Per measure: median, min, max and runs over its bound."""
    out = {}
    for i, m in enumerate(MEASURES):
        xs = sorted(r[i] for r in rows)
        out[m] = {"median": statistics.median(xs), "min": xs[0], "max": xs[-1],
                  "over": sum(x > over[i] for x in xs)}
    return out


def line(s: dict) -> str:
    return (" ".join(f"{m} {s[m]['median']:.3f} [{s[m]['min']:.3f}-{s[m]['max']:.3f}]"
                     for m in MEASURES)
            + "  over: " + " ".join(f"{m} {s[m]['over']}" for m in ("peak", "time", "moved")))


def run_line(r) -> str:
    return (f"{r.makespan:.4f} {max(r.peak_memory_per_worker) / 1e6:.0f} "
            f"{r.bytes_transferred / 1e6:.0f}")


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    S.add_cell_args(ap, only="seed-anomaly", seeds=3)
    ap.add_argument("--switch", action="append", required=True,
                    help="a switch (NAME of tidegate.policy or MODULE.NAME); several: repeat "
                    "or comma separate, with --old / --new in the same order")
    ap.add_argument("--old", action="append", required=True)
    ap.add_argument("--new", action="append", required=True)
    ap.add_argument("--over", default="1.05,1.05,1.0001",
                    help="a run is counted over if its peak, time, bytes moved ratio exceeds these")
    ap.add_argument("--json", help="every run and each cell's summary to this JSON file")
    a = ap.parse_args(argv)
    over = tuple(map(float, a.over.split(",")))
    over = (over[1], over[0], over[2])  # (time, peak, moved), MEASURES' order
    S.patch(a.patch)
    sw = settings(a.switch, a.old, a.new)
    out = {"command": "python bench/ab_twin.py " + " ".join(argv or sys.argv[1:]),
           "switches": [{"name": f"{m.__name__}.{n}", "old": o, "new": v}
                        for m, n, _, o, v in sw],
           "cells": []}

    def tidegate(side: int, *cell):
        put(sw, side)
        return S.twin(*cell)

    with switched(sw):
        for name, model, graphs in S.models(a.only.split(","), a.measured, a.namings):
            for lag in map(float, a.lags.split(",")):
                for shape in a.shapes.split(","):
                    rows: dict = {"old": [], "new": []}
                    runs = []
                    same = 0
                    for n, g in enumerate(graphs):
                        for seed in range(a.seeds):
                            cell = (model, g, "tidegate", shape, lag, seed, a.outgoing)
                            q = S.twin(model, g, "queue", shape, lag, seed, a.outgoing)
                            o, nw = tidegate(1, *cell), tidegate(2, *cell)
                            rows["old"].append(ratios(o, q))
                            rows["new"].append(ratios(nw, q))
                            same += ((o.makespan, o.peak_memory_per_worker, o.bytes_transferred)
                                     == (nw.makespan, nw.peak_memory_per_worker,
                                         nw.bytes_transferred))
                            runs.append({"naming": n, "seed": seed, **{
                                k: {"makespan": r.makespan, "peaks": r.peak_memory_per_worker,
                                    "moved": r.bytes_transferred}
                                for k, r in (("queue", q), ("old", o), ("new", nw))}})
                            if a.v:
                                print(f"   n{n} s{seed} q {run_line(q)} | old {run_line(o)} "
                                      f"| new {run_line(nw)}")
                    k = len(runs)
                    tag = "SAME" if same == k else f"moved {k - same}/{k}"
                    print(f"{name} {shape} lag{lag * 1e3:g} {tag}")
                    sums = {side: summary(r, over) for side, r in rows.items()}
                    for side, s in sums.items():
                        print(f"    {side}: {line(s)}", flush=True)
                    out["cells"].append({"workload": name, "shape": shape, "lag": lag,
                                         "same": same == k, "moved_runs": k - same,
                                         "summary": sums, "runs": runs})
    return dump(out, a.json)


if __name__ == "__main__":
    main()
