"""Summarise ab_twin.py --json files: per cell and side, time ratio median [min-max], runs
over 1.05x time, runs whose peak is over queuing's by more than 1 MB, and the worst runs.
    python cells.py AB.json [--worst N] [--side old|new]"""
import json
import statistics
import sys


def main():
    args = sys.argv[1:]
    worst = int(args[args.index("--worst") + 1]) if "--worst" in args else 0
    for path in [a for a in args if a.endswith(".json")]:
        d = json.load(open(path))
        print(path, d.get("switches"))
        for c in d["cells"]:
            line = f"{c['workload']} {c['shape']} {c['lag']}:"
            for side in ("old", "new"):
                t = [r[side]["makespan"] / r["queue"]["makespan"] for r in c["runs"]]
                p = [max(r[side]["peaks"]) / max(r["queue"]["peaks"]) for r in c["runs"]]
                pover = sum(max(r[side]["peaks"]) > max(r["queue"]["peaks"]) + 1e6
                            for r in c["runs"])
                line += (f" {side} t {statistics.median(t):.3f} [{min(t):.3f}-{max(t):.3f}]"
                         f" {sum(x > 1.05 for x in t)} over; pk {statistics.median(p):.3f}"
                         f" {pover} over q |")
            moved = sum(r["old"] != r["new"] for r in c["runs"])
            print(line, f"moved {moved}/{len(c['runs'])}")
            if worst:
                rs = sorted(c["runs"], key=lambda r: -r["new"]["makespan"] / r["queue"]["makespan"])
                for r in rs[:worst]:
                    print(f"   n{r['naming']}s{r['seed']} q {r['queue']['makespan']:.4f} "
                          f"old {r['old']['makespan']:.4f} new {r['new']['makespan']:.4f}"
                          f" ({r['new']['makespan'] / r['queue']['makespan']:.3f})")


main()
