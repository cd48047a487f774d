"""Tabulate bench/wall24_twin.py JSONs side by side: tidegate/queue makespan, peak, moved
(median over seeds, [min-max]) per workload x cell, one column group per JSON.

    python bench/sessions/wall24_table.py A.json [B.json ...]
"""
import json
import sys


def main(paths):
    ds = [json.load(open(p)) for p in paths]
    print("tidegate / queue over seeds: makespan median [min-max] | peak median [max] "
          "| moved median")
    print("columns: " + " || ".join(paths))
    flagged = []
    for name in ds[0]["workloads"]:
        for cell in ds[0]["workloads"][name]["cells"]:
            parts = []
            for i, d in enumerate(ds):
                c = d["workloads"].get(name, {}).get("cells", {}).get(cell)
                if c is None:
                    parts.append("-")
                    continue
                r = c["ratios"]
                m, p, b = r["makespan"], r["peak"], r["moved"]
                mark = "*" if m["median"] > 1.05 or p["median"] > 1.0 else " "
                if mark == "*":
                    flagged.append((paths[i], name, cell))
                parts.append(f"{mark}{m['median']:.2f} [{m['min']:.2f}-{m['max']:.2f}] | "
                             f"{p['median']:.2f} [{p['max']:.2f}] | {b['median']:.2f}")
            print(f"{name:17} {cell:13} " + " || ".join(parts))
    print("* makespan median > 1.05 or peak median > 1.00:")
    for f in flagged:
        print("  ", *f)


if __name__ == "__main__":
    main(sys.argv[1:])
