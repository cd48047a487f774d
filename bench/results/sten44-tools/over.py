"""Runs of ab_twin JSONs over queuing's peak (by more than 1 MB) per side: naming, seed and
the excess in MB. python over.py AB.json"""
import json, sys
for p in sys.argv[1:]:
    d = json.load(open(p))
    print(p, d.get("switches"))
    for c in d["cells"]:
        for side in ("old", "new"):
            xs = []
            for r in c["runs"]:
                q = max(r["queue"]["peaks"]); n = max(r[side]["peaks"])
                if n > q + 1e6:
                    xs.append(f"n{r['naming']}s{r['seed']}+{(n - q) / 1e6:.0f}")
            print(f"  {c['shape']} {c['lag']} {side}: {len(xs)} over:", " ".join(xs))
