"""One markdown table from bench/distributed.py runs (its JSON, or its log's "rep" lines when
a run was cut short): per workload and setup, medians (min-max) of peak RSS of the busiest
worker, wall and bytes moved for queue, eager and tidegate, tidegate's ratios to queue's
medians (peak RSS; peak managed bytes, the data the scheduler placed), and the per-rep
ratio range (runs are interleaved, so rep i's tidegate / queue
pairs runs made under about the same load).

    python bench/results/cluster10-table.py 4x1-200MBs=path.json|path.log ... > table.md
"""

from __future__ import annotations

import json
import re
import statistics
import sys

LINE = re.compile(r"^rep (\d+) (\S+)\s+(\S+)\s+(.*)$")
ORDER = ("loaders", "open-read-select", "stack-sum", "offset-slices", "stencil", "rechunk",
         "vorticity-files", "seed-slice-add", "seed-rechunk-add", "seed-weighted", "seed-anomaly")


def read(path: str) -> dict:
    """{workload: {mode: [run, ...]}} from a JSON or a log."""
    if path.endswith(".json"):
        return json.load(open(path))["runs"]
    runs: dict = {}
    for line in open(path):
        m = LINE.match(line)
        if m:
            _, w, mode, rest = m.groups()
            r = {k: float(v) for k, v in (kv.split("=") for kv in rest.split())}
            runs.setdefault(w, {}).setdefault(mode, []).append(r)
    return runs


def span(xs, fmt="{:.0f}"):
    if not xs:
        return "-"
    if len(xs) == 1:
        return fmt.format(xs[0])
    return f"{fmt.format(statistics.median(xs))} ({fmt.format(min(xs))}-{fmt.format(max(xs))})"


def rows(setup: str, runs: dict):
    for w in [w for w in ORDER if w in runs] + [w for w in runs if w not in ORDER]:
        ms = runs[w]
        q, t, e = ms.get("queue", []), ms.get("tidegate", []), ms.get("eager", [])
        if not q or not t:
            continue
        def med(rs, k):
            return statistics.median(r[k] for r in rs)
        n = min(len(q), len(t))
        paired = [t[i]["peak_rss_mb"] / q[i]["peak_rss_mb"] for i in range(n)]
        peak = med(t, "peak_rss_mb") / med(q, "peak_rss_mb")
        managed = med(t, "peak_managed_mb") / med(q, "peak_managed_mb")
        wall = med(t, "wall_s") / med(q, "wall_s")
        qb, tb = med(q, "transferred_mb"), med(t, "transferred_mb")
        misses = []
        if peak > 1.05:
            misses.append("peak")
        if wall > 1.05:
            misses.append("wall")
        if tb > qb * 1.05 + 1:
            misses.append("bytes")
        loads = [r["load1"] for rs in (q, t, e) for r in rs if "load1" in r]
        yield (f"| {w} | {setup} | {len(t)} | {span([r['peak_rss_mb'] for r in t])} | "
               f"{span([r['peak_rss_mb'] for r in q])} | {span([r['peak_rss_mb'] for r in e])} | "
               f"**{peak:.2f}** ({min(paired):.2f}-{max(paired):.2f}) | {managed:.2f} | "
               f"{wall:.2f} ({span([r['wall_s'] for r in t], '{:.1f}')} vs "
               f"{span([r['wall_s'] for r in q], '{:.1f}')}) | "
               f"{tb:.0f} vs {qb:.0f} | "
               f"{span(loads, '{:.0f}') if loads else '-'} | {', '.join(misses) or 'ok'} |")


def main(argv):
    print("| workload | setup | reps | tidegate peak RSS MiB | queue | eager | tidegate / queue "
          "peak (per-rep range) | managed t / q | wall t / q (t s vs q s) | MiB moved t vs q | load | target |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for arg in argv:
        setup, path = arg.split("=", 1)
        for row in rows(setup, read(path)):
            print(row)


if __name__ == "__main__":
    main(sys.argv[1:])
