"""Several policy variants against one queue run per (naming, seed), in one process (ab_twin's
cells, with N sides instead of two: one queue run shared). Prints per variant: runs over 1.05x
queuing's time, runs over queuing's peak by > 1 MB, summed makespan, median time / peak ratio.
python multi.py --only stencil --shapes 2x8 --lags 0.002 --namings 10 --seeds 6
    --var base: --var sd0:SHORT_DEEP=0 --var bw0:BESIDE_WIDE=0 [--naming-list 0,3] --json OUT
"""
import argparse
import ast
import json
import os
import statistics
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
bench = os.path.dirname(os.path.dirname(here))
sys.path.insert(0, bench)
import ab_twin  # noqa: E402
S = ab_twin.S

ap = argparse.ArgumentParser()
S.add_cell_args(ap, only="stencil", seeds=6)
ap.add_argument("--var", action="append", required=True)
ap.add_argument("--runs", help="naming:seed,... only these")
ap.add_argument("--json")
a = ap.parse_args()
S.patch(a.patch)
variants = []
for v in a.var:
    name, _, sets = v.partition(":")
    vals = []
    for kv in filter(None, sets.split(",")):
        k, _, t = kv.partition("=")
        m, attr = ab_twin.switch(k)
        vals.append((m, attr, ast.literal_eval(t)))
    variants.append((name, vals))
only = None
if a.runs:
    only = {tuple(map(int, x.split(":"))) for x in a.runs.split(",")}
out = {"command": " ".join(sys.argv), "variants": a.var, "cells": []}
for wname, model, graphs in S.models(a.only.split(","), a.measured, a.namings):
    for lag in map(float, a.lags.split(",")):
        for shape in a.shapes.split(","):
            runs = []
            t0 = time.time()
            for n, g in enumerate(graphs):
                for seed in range(a.seeds):
                    if only and (n, seed) not in only:
                        continue
                    q = S.twin(model, g, "queue", shape, lag, seed, a.outgoing)
                    row = {"naming": n, "seed": seed, "queue": {
                        "makespan": q.makespan, "peaks": q.peak_memory_per_worker,
                        "moved": q.bytes_transferred}}
                    for name, vals in variants:
                        saved = [(m, attr, getattr(m, attr)) for m, attr, _ in vals]
                        for m, attr, v in vals:
                            setattr(m, attr, v)
                        try:
                            r = S.twin(model, g, "tidegate", shape, lag, seed, a.outgoing)
                        finally:
                            for m, attr, v in saved:
                                setattr(m, attr, v)
                        row[name] = {"makespan": r.makespan, "peaks": r.peak_memory_per_worker,
                                     "moved": r.bytes_transferred}
                    runs.append(row)
                    if a.v:
                        qp = max(q.peak_memory_per_worker)
                        print(f"   n{n}s{seed} q {q.makespan:.4f} {qp/1e6:.0f} | " + " | ".join(
                            f"{nm} {row[nm]['makespan']/q.makespan:.3f} "
                            f"{(max(row[nm]['peaks'])-qp)/1e6:+.0f}" for nm, _ in variants),
                            flush=True)
            print(f"{wname} {shape} lag{lag*1e3:g} n={len(runs)} ({time.time()-t0:.0f}s)")
            for name, _ in variants:
                tr = [r[name]["makespan"] / r["queue"]["makespan"] for r in runs]
                pr = [max(r[name]["peaks"]) / max(r["queue"]["peaks"]) for r in runs]
                tover = sum(t > 1.05 for t in tr)
                pk = sum(max(r[name]["peaks"]) - max(r["queue"]["peaks"]) > 1e6 for r in runs)
                tot = sum(r[name]["makespan"] for r in runs)
                same = sum(r[name] == r[variants[0][0]] for r in runs)
                print(f"    {name:8s} time over {tover:2d} pk over {pk:2d} sum {tot:.3f} "
                      f"time {statistics.median(tr):.3f} [{min(tr):.3f}-{max(tr):.3f}] "
                      f"peak {statistics.median(pr):.3f} (max {max(pr):.3f}) "
                      f"same-as-{variants[0][0]} {same}", flush=True)
            out["cells"].append({"workload": wname, "shape": shape, "lag": lag, "runs": runs})
if a.json:
    json.dump(out, open(a.json, "w"))
