"""vort21: the interleaved A/B runs (vort20_diag.py's JSON lines) summed up: per file, cell and
limit the median (range) of wall, tasks at once, task-seconds, compute CPU, peak and bytes
written, load; then per arm against base, the pairs of one rep (wall ratio, faster in).

    python bench/results/vort21_summary.py bench/results/vort21-ab-*.jsonl ..."""
import json, statistics as S, sys
from collections import defaultdict


def at_once(r):
    c = r.get("conc")
    if not c:
        return None
    return sum(int(k) * v for k, v in c.items()) / sum(c.values())


def rng(xs, f="{:.2f}"):
    return f"{f.format(S.median(xs))} ({f.format(min(xs))}-{f.format(max(xs))})"


for path in sys.argv[1:]:
    rows = [json.loads(line) for line in open(path) if line.strip()]
    print(f"== {path}: {len(rows)} runs, load {min(r['load'] for r in rows):.1f}-{max(r['load'] for r in rows):.1f}")
    cells = defaultdict(list)
    for r in rows:
        cells[r["cell"]].append(r)
    for cell, rs in cells.items():
        line = f"  {cell:18} n={len(rs)} wall {rng([r['wall'] for r in rs])}"
        if rs[0].get("conc"):
            line += (f" at once {rng([at_once(r) for r in rs])} task-s {rng([r['task_s'] for r in rs])}"
                     f" written MB {rng([r['written'] / 1e6 for r in rs], '{:.0f}')}")
        line += (f" cpu {rng([r['utime'] + r['stime'] for r in rs])}"
                 f" peak MB {rng([r['peak'] / 1e6 for r in rs], '{:.0f}')}")
        print(line)
    for cell in cells:
        arm, _, lim = cell.partition(" ")
        if arm in ("base", "threaded") or f"base {lim}" not in cells:
            continue
        base = {r["rep"]: r for r in cells[f"base {lim}"]}
        ratios = [r["wall"] / base[r["rep"]]["wall"] for r in cells[cell] if r["rep"] in base]
        ao = [at_once(r) - at_once(base[r["rep"]]) for r in cells[cell] if r["rep"] in base]
        print(f"  pairs {cell} / base: {len(ratios)}, faster in {sum(x < 1 for x in ratios)},"
              f" wall ratio {rng(ratios, '{:.3f}')}, at once +{S.median(ao):.3f}")
