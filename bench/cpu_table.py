"""The README's CPU table from bench/plugin_cpu.py's JSON files: tidegate / queue scheduler
CPU per task, the median of every lockstep pair pooled over the files of a column (range,
pair count).

    python bench/cpu_table.py "100 workers=bench/results/X-cpu/*-merged-r*.json" \
        "1,000 workers=bench/results/X-cpu1000/*.json"
"""
import glob
import json
import statistics
import sys


def pairs(paths: list[str]) -> dict[str, list[float]]:
    """workload -> tidegate / queue ratio of each lockstep pair in these files."""
    out: dict[str, list[float]] = {}
    for p in paths:
        for run in json.load(open(p))["runs"]:
            out.setdefault(run["workload"], []).extend(
                pr["tidegate"]["sched_us_per_task"] / pr["queue"]["sched_us_per_task"]
                for pr in run["pairs"])
    return out


def main(columns: list[str]) -> None:
    cols = [(label, pairs(sorted(glob.glob(pattern))))
            for label, pattern in (c.split("=", 1) for c in columns)]
    names = sorted({w for _, c in cols for w in c})
    print("| workload | " + " | ".join(label for label, _ in cols) + " |")
    print("|---|" + "---|" * len(cols))
    for w in names:
        cells = []
        for _, c in cols:
            r = c.get(w)
            cells.append(f"{statistics.median(r):.2f} ({min(r):.2f}-{max(r):.2f}, {len(r)})"
                         if r else "")
        print(f"| {w} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
