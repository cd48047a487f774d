"""new/old makespan and peak run by run per cell of an ab_twin.py JSON (sten43)."""
import json
import statistics
import sys

for path in sys.argv[1:]:
    for c in json.load(open(path))["cells"]:
        t = sorted(r["new"]["makespan"] / r["old"]["makespan"] for r in c["runs"])
        p = [max(r["new"]["peaks"]) - max(r["old"]["peaks"]) for r in c["runs"]]
        print(f"{c['workload']} {c['shape']} {c['lag']}: new/old makespan median "
              f"{statistics.median(t):.3f} [{t[0]:.3f}-{t[-1]:.3f}], slower {sum(x > 1 for x in t)}"
              f" of {len(t)}; peak lower {sum(x < -1e6 for x in p)}, higher {sum(x > 1e6 for x in p)}")
