"""README's LocalCluster table from bench/distributed.py's JSON files: tidegate (or another
mode) against queue, medians over every run of a workload in a column's files (interleaved
runs of one code may come from several invocations, so they are pooled), then each cell's
spread and the machine's load.

    python bench/cluster_table.py \
        --column "2 x 1, 200 MB/s=bench/results/lead28-dist-2x1*.json" \
        --column "4 x 1, 200 MB/s=bench/results/lead28-dist-4x1*.json" [--mode eager]

A cell: peak RSS of the busiest worker / wall (or, with --second managed, peak managed memory,
dask's count of held results: the measure that load does not move) / MB moved, mode's vs
queue's (medians).
"""

from __future__ import annotations

import argparse
import glob
import json
from statistics import median

NAMES = {"loaders": "unique-key loaders", "open-read-select": "open -> read -> select",
         "stack-sum": "stack-sum", "offset-slices": "shifted slices",
         "stencil": "stencil (map_overlap)", "rechunk": "rechunk",
         "vorticity-files": "vorticity-files", "seed-slice-add": "seed slice-add",
         "seed-rechunk-add": "seed rechunk-add", "seed-weighted": "seed weighted",
         "seed-anomaly": "seed anomaly"}


def pooled(pattern: str) -> tuple[dict, list]:
    """workload -> mode -> runs, over every file the patterns (comma-separated) name; the
    loads seen."""
    runs: dict = {}
    loads = []
    for f in sorted({f for p in pattern.split(",") for f in glob.glob(p)}):
        for w, ms in json.load(open(f))["runs"].items():
            for m, rs in ms.items():
                runs.setdefault(w, {}).setdefault(m, []).extend(rs)
                loads += [r["load1"] for r in rs]
    return runs, loads


SECOND = {"wall": "wall_s", "managed": "peak_managed_mb"}


def cell(ms: dict, mode: str, second: str = "wall") -> str:
    t, q = ms.get(mode), ms.get("queue")
    if not t or not q:
        return ""
    ratio = lambda k: median(r[k] for r in t) / median(r[k] for r in q)  # noqa: E731
    peak, other = ratio("peak_rss_mb"), ratio(SECOND[second])
    moved = (median(r["transferred_mb"] for r in rs) for rs in (t, q))
    bold = lambda x: f"**{x:.2f}**" if x <= 0.6 else f"{x:.2f}"  # noqa: E731  issue 9's 0.6x
    other = bold(other) if second == "managed" else f"{other:.2f}"
    return f"{bold(peak)} / {other} / {next(moved):.0f} vs {next(moved):.0f}"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--column", action="append", required=True, metavar="TITLE=GLOB[,GLOB]")
    ap.add_argument("--mode", default="tidegate")
    ap.add_argument("--second", choices=sorted(SECOND), default="wall",
                    help="the middle number of a cell")
    args = ap.parse_args(argv)
    columns = [c.split("=", 1) for c in args.column]
    data = {title: pooled(pattern) for title, pattern in columns}
    print("| workload | " + " | ".join(t for t, _ in columns) + " |")
    print("|---|" + "---|" * len(columns))
    for w, name in NAMES.items():
        cells = [cell(data[t][0].get(w, {}), args.mode, args.second) for t, _ in columns]
        if any(cells):
            print(f"| {name} | " + " | ".join(cells) + " |")
    print(f"\nspread: runs, peak RSS MB, managed MB and wall s min-max, {args.mode} | queue")
    span = lambda rs, k, p: (  # noqa: E731
        f"{min(r[k] for r in rs):.{p}f}-{max(r[k] for r in rs):.{p}f}")
    for w, name in NAMES.items():
        for t, _ in columns:
            ms = data[t][0].get(w, {})
            a, q = ms.get(args.mode), ms.get("queue")
            if a and q:
                print(f"  {name:24} {t:18} n={len(a)}/{len(q)}  RSS {span(a, 'peak_rss_mb', 0)} | "
                      f"{span(q, 'peak_rss_mb', 0)}  managed {span(a, 'peak_managed_mb', 0)} | "
                      f"{span(q, 'peak_managed_mb', 0)}  wall {span(a, 'wall_s', 2)} | "
                      f"{span(q, 'wall_s', 2)}")
    print("load1 at the runs' starts: " + ", ".join(
        f"{t} {min(ls):.1f}-{max(ls):.1f}" for t, (_, ls) in data.items() if ls))


if __name__ == "__main__":
    main()
