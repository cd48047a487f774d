"""Loads (random_sample starts) per worker of trace_twin JSONs: time, block, and the
threads busy then. python loads.py A.json [B.json ...]"""
import ast, json, sys

for p in sys.argv[1:]:
    d = json.load(open(p))
    print(p, "makespan", round(d["makespan"], 4), "peaks", d.get("peaks"))
    tasks = d["tasks"]
    for w in sorted({t[1] for t in tasks}):
        mine = [t for t in tasks if t[1] == w]
        loads = sorted((t[3], t[4], ast.literal_eval(t[0])[1:]) for t in mine
                       if "random_sample" in t[0])
        out = []
        for s, e, b in loads:
            busy = sum(1 for t in mine if t[3] <= s < t[4])
            out.append(f"{s * 1000:5.1f}{b}b{busy}")
        print(" ", w[-6:], len(loads), " ".join(out))
