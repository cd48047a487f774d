"""The 6 x 6 stencil's blocks per worker of trace_twin JSONs: a grid of 'W:ms' (the worker
that loaded block (i, j) and its load's start, ms), and each worker's peak with the time and
the blocks held then. python grid.py A.json [B.json ...]"""
import ast
import json
import sys

for p in sys.argv[1:]:
    d = json.load(open(p))
    ws = sorted(d["workers"])
    print(p, "makespan", round(d["makespan"], 4))
    at = {}
    for t in d["tasks"]:
        if "random_sample" in t[0]:
            k = ast.literal_eval(t[0])
            at[k[1:]] = (ws.index(t[1]), t[3] * 1000)
    n = 1 + max(i for i, _ in at)
    m = 1 + max(j for _, j in at)
    for i in range(n):
        print("   ", " ".join(f"{at[i, j][0]}:{at[i, j][1]:5.1f}" for j in range(m)))
    for w in ws:
        info = d["workers"][w]
        held = [ast.literal_eval(k) for k, b, _ in info["held"] if b >= 4e6]
        blocks = sorted({k[1:] for k in held if "random_sample" in k[0]})
        centers = sorted({k[1:] for k in held if "getitem" in k[0]})
        print(f"   w{ws.index(w)} peak {info['peak'] / 1e6:.0f} MB at {info['at'] * 1000:.1f}"
              f" blocks {blocks} centers {centers}")
