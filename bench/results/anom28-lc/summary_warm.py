"""Summary of anom28-lc/TAG-warm-4x1-iN.json (3 reps per invocation): the invocation's first
run dropped (warm-up: the zarr inputs were just written); medians (min-max) per mode, and
tidegate / queue paired within reps 1 and 2.  python summary_warm.py TAG"""
import glob, json, os, statistics, sys

D = os.path.dirname(os.path.abspath(__file__))
KEYS = [("peak_rss_mb", "RSS MiB"), ("peak_managed_mb", "managed MiB"), ("wall_s", "wall s"),
        ("transferred_mb", "moved MB")]
tag = sys.argv[1]
kept = {"queue": [], "tidegate": []}
pairs = []
loads = []
for f in sorted(glob.glob(f"{D}/{tag}-warm-4x1-i*.json")):
    d = json.load(open(f))
    cmd = d["command"]
    modes = cmd.split("--modes")[1].split()[0].strip("=").split(",")
    runs = d["runs"]["seed-anomaly"]
    first = modes[0]
    for m in modes:
        for i, r in enumerate(runs[m]):
            loads.append(r["load1"])
            if not (m == first and i == 0):
                kept[m].append(r)
    for i in (1, 2):
        if len(runs["queue"]) > i and len(runs["tidegate"]) > i:
            pairs.append((runs["tidegate"][i], runs["queue"][i]))
print(f"load1 {min(loads):.1f}-{max(loads):.1f}")
for m, rs in kept.items():
    print(f"{m:9} n={len(rs):2} " + "  ".join(
        f"{lab} {statistics.median([x[k] for x in rs]):.1f} ({min(x[k] for x in rs):.1f}-"
        f"{max(x[k] for x in rs):.1f})" for k, lab in KEYS))
for k, lab in KEYS:
    rat = [t[k] / q[k] for t, q in pairs]
    print(f"tidegate/queue {lab:12} paired (reps 1-2, n={len(rat)}) median "
          f"{statistics.median(rat):.3f} ({min(rat):.3f}-{max(rat):.3f}); ratio of medians "
          f"{statistics.median([x[k] for x in kept['tidegate']]) / statistics.median([x[k] for x in kept['queue']]):.3f}")
