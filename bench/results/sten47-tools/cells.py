"""Per cell of ab_twin JSONs: time over 1.05x queuing's makespan, runs over queuing's peak by
more than 1 MB, summed makespan, summed MB over queuing's peak, per side; -v: the runs where
either side is over queuing's peak. python cells.py [-v] AB.json ..."""
import json
import sys

verbose = "-v" in sys.argv
for p in [a for a in sys.argv[1:] if a != "-v"]:
    d = json.load(open(p))
    print(p, [(s["name"].split(".")[-1], s["old"], s["new"]) for s in d.get("switches", [])])
    for c in d["cells"]:
        out = []
        for side in ("old", "new"):
            tover = pk = 0
            total = excess = 0.0
            for r in c["runs"]:
                q, n = r["queue"], r[side]
                tover += n["makespan"] > 1.05 * q["makespan"]
                over = max(n["peaks"]) - max(q["peaks"])
                pk += over > 1e6
                excess += max(over, 0) / 1e6
                total += n["makespan"]
            out.append(f"{side} {tover:2d}/{pk:2d} sum {total:.3f} +{excess:.0f}MB")
        print(f"  {c['workload']} {c['shape']} {c['lag']} n={len(c['runs'])}: " + " | ".join(out))
        if verbose:
            for r in c["runs"]:
                q = max(r["queue"]["peaks"])
                o, n = max(r["old"]["peaks"]), max(r["new"]["peaks"])
                if o > q + 1e6 or n > q + 1e6:
                    print(f"    n{r['naming']}s{r['seed']} q {r['queue']['makespan']:.4f} "
                          f"{q/1e6:.0f} | old {r['old']['makespan']:.4f} {o/1e6:.0f} | "
                          f"new {r['new']['makespan']:.4f} {n/1e6:.0f}")
