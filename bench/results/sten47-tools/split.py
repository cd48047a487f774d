"""Blocks loaded per worker (the split of the stencil's 36) and each worker's peak (MB) of
trace_twin JSONs. python split.py A.json ..."""
import json
import sys

for p in sys.argv[1:]:
    d = json.load(open(p))
    ws = sorted(d["workers"])
    n = {w: 0 for w in ws}
    for t in d["tasks"]:
        if "random_sample" in t[0]:
            n[t[1]] += 1
    print(p.split("/")[-1], round(d["makespan"], 4), "split", [n[w] for w in ws], "peaks",
          [round(d["workers"][w]["peak"] / 1e6) for w in ws],
          "moved MB", round(d["moved"] / 1e6))
