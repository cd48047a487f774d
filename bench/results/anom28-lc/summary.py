"""Summary of anom28-lc/TAG-Wx1-rN.json: per shape and mode, medians (min-max) of peak RSS,
peak managed, wall, MB moved, and tidegate / queue per round (paired).
python bench/results/anom28-lc/summary.py TAG [TAG2 ...]  (TAG2's tidegate beside TAG's)"""
import glob, json, os, re, statistics, sys
from collections import defaultdict

D = os.path.dirname(os.path.abspath(__file__))
KEYS = [("peak_rss_mb", "RSS MiB"), ("peak_managed_mb", "managed MiB"), ("wall_s", "wall s"),
        ("transferred_mb", "moved MB")]


def load(tag):
    out = defaultdict(lambda: defaultdict(dict))  # W -> round -> mode -> run
    for f in glob.glob(f"{D}/{tag}-*x1-r*.json"):
        m = re.search(r"-(\d+)x1-r(\d+)\.json$", f)
        W, r = int(m.group(1)), int(m.group(2))
        runs = json.load(open(f))["runs"]["seed-anomaly"]
        for mode, rs in runs.items():
            if rs:
                out[W][r][mode] = rs[0]
    return out


def med(xs):
    return f"{statistics.median(xs):7.1f} ({min(xs):.1f}-{max(xs):.1f})"


for tag in sys.argv[1:]:
    data = load(tag)
    for W in sorted(data):
        rounds = data[W]
        print(f"== {tag} {W}x1: {len(rounds)} rounds")
        modes = sorted({m for r in rounds.values() for m in r})
        loads = [run["load1"] for r in rounds.values() for run in r.values()]
        print(f"   load1 {min(loads):.1f}-{max(loads):.1f} (median {statistics.median(loads):.1f})")
        for m in modes:
            rs = [r[m] for r in rounds.values() if m in r]
            print(f"   {m:9} n={len(rs):2} " + "  ".join(
                f"{lab} {med([x[k] for x in rs])}" for k, lab in KEYS))
            print(f"   {'':9} managed sorted: " + " ".join(
                f"{x['peak_managed_mb']:.0f}" for x in sorted(rs, key=lambda x: x['peak_managed_mb'])))
        if "queue" in modes and "tidegate" in modes:
            pairs = [(r["tidegate"], r["queue"]) for r in rounds.values()
                     if "tidegate" in r and "queue" in r]
            for k, lab in KEYS:
                rat = [t[k] / q[k] for t, q in pairs if q[k]]
                if rat:
                    print(f"   tidegate/queue {lab:12} paired median {statistics.median(rat):.3f}"
                          f" ({min(rat):.3f}-{max(rat):.3f}), ratio of medians "
                          f"{statistics.median([t[k] for t, q in pairs]) / statistics.median([q[k] for t, q in pairs]):.3f}")
