"""rech37: per-run paired ratios (new/old makespan, new/old largest peak) from ab_twin.py --json
files: python paired.py A.json [B.json ...]"""
import json, statistics as st, sys
for f in sys.argv[1:]:
    for c in json.load(open(f))["cells"]:
        if c["same"]:
            continue
        r = [x["new"]["makespan"] / x["old"]["makespan"] for x in c["runs"]]
        pk = [max(x["new"]["peaks"]) / max(x["old"]["peaks"]) for x in c["runs"]]
        print(f"{c['shape']} {c['lag'] * 1e3:g}ms n={len(r)} time new/old {st.median(r):.3f} "
              f"[{min(r):.3f}-{max(r):.3f}]  peak new/old {st.median(pk):.3f} [{min(pk):.3f}-{max(pk):.3f}]")
