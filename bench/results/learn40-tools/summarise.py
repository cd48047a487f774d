"""Summarise bench/distributed_twice.py outputs: per file, mode and computation: walls,
peaks, bytes moved, load (medians [min-max], n), and per run the broadcast's decisions
(level before -> after, verdicts as durations and free?, fan-out most at once, hops, span).

    python bench/results/learn40-tools/summarise.py X.json [Y.json ...] [--runs]
"""
import json
import statistics
import sys


def med(xs, f="{:.2f}"):
    return f"{f.format(statistics.median(xs))} [{f.format(min(xs))}-{f.format(max(xs))}]"


def refloor(r, durations, nbytes=8e6):
    """The verdict BROADCAST_RATE_FLOOR 1 would give these durations (approximate: the
    best rate at the run's end, dask's bandwidth as recorded, else its 100 MB/s default;
    the seed workloads' broadcast inputs are 8 MB)."""
    from tidegate import policy

    old = policy.BROADCAST_RATE_FLOOR
    policy.BROADCAST_RATE_FLOOR = 1
    try:
        rate = policy.copy_rate((r.get("best_rate_mbs") or 0) * 1e6,
                                (r.get("dask_bandwidth_mbs") or 100) * 1e6)
        return "free" if policy.senders_free(durations, nbytes, rate) else "slow"
    finally:
        policy.BROADCAST_RATE_FLOOR = old


def main():
    files = [a for a in sys.argv[1:] if not a.startswith("--")]
    show_runs = "--runs" in sys.argv
    for fn in files:
        d = json.load(open(fn))
        print(f"## {fn}\n   {d['command']}")
        cells = {}
        for r in d["runs"]:
            cells.setdefault((r["computation"], r["mode"]), []).append(r)
        for (c, m), rs in sorted(cells.items()):
            print(f"  c{c} {m:6} n={len(rs)} wall {med([r['wall_s'] for r in rs])} "
                  f"peak {med([r['peak_managed_mb'] for r in rs], '{:.0f}')} "
                  f"moved {med([r['transferred_mb'] for r in rs], '{:.0f}')} "
                  f"load {med([r['load1'] for r in rs], '{:.1f}')}")
        if show_runs:
            for r in d["runs"]:
                bc = r.get("broadcast") or {}
                fan = " ".join(f"{v['copies']}c/{v['most_at_once']}at1/{v['hops']}h/"
                               f"{v['span_s']:.3f}s" for v in bc.values())
                ver = " ".join(f"({','.join(f'{x:.3f}' for x in ds)})->{'free' if fr else 'slow'}"
                               f"{'' if r['mode'].endswith('f') else '/F:' + refloor(r, ds)}"
                               for _, ds, fr in r.get("verdicts") or [])
                print(f"    p{r['pair']} {r['mode']} c{r['computation']} load {r['load1']:.1f} "
                      f"wall {r['wall_s']:.2f} peak {r['peak_managed_mb']:.0f} moved "
                      f"{r['transferred_mb']:.0f} level {r.get('level0')}->{r.get('level')} "
                      f"best {r.get('best_rate_mbs') or 0:.0f}MB/s {ver} | {fan}")


if __name__ == "__main__" and "--tally" not in sys.argv:
    main()


def tally(files):
    """Across files: every verdict by mode and position (the first of a cluster, later),
    free or slowed, and the level each cluster ended at after each computation."""
    first, later, ends = {}, {}, {}
    for fn in files:
        d = json.load(open(fn))
        cell = fn.rsplit("/", 1)[-1]
        seen = set()
        for r in d["runs"]:
            if not r["mode"].startswith("learn1"):
                continue
            key = (cell, r["mode"], r["pair"])
            for _, ds, fr in r.get("verdicts") or []:
                box = later if key in seen else first
                seen.add(key)
                box.setdefault((cell, r["mode"]), []).append("free" if fr else "slow")
            ends.setdefault((cell, r["mode"]), []).append((r["computation"], r.get("level")))
    for (cell, m), vs in sorted(first.items()):
        print(f"  {cell:24} {m:7} first {vs}  later {later.get((cell, m), [])}")
    for (cell, m), es in sorted(ends.items()):
        by = {}
        for c, lv in es:
            by.setdefault(c, []).append(lv)
        print(f"  {cell:24} {m:7} level after c0/c1/c2: {[by[c] for c in sorted(by)]}")


if __name__ == "__main__" and "--tally" in sys.argv:
    tally([a for a in sys.argv[1:] if not a.startswith("--")])
