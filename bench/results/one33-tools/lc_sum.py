import json, sys, glob, re, statistics
def short(k):
    m = re.match(r"\('([a-z_\-]+?)-?[0-9a-f]{32}', (.*)\)", k)
    if m: return m.group(1) + "(" + m.group(2).split(",")[0] + ")"
    return k[:20]
rows = {}
for f in sorted(glob.glob(sys.argv[1])):
    d = json.load(open(f))
    tag = f.split("/")[-1].rsplit("-r", 1)[0]
    tl = d["timeline"]
    w = max(tl, key=lambda w: tl[w]["peak"])
    held = [short(k) for k, v in tl[w]["at_peak"]]
    loads = sorted(int(h.split("(")[1][:-1]) for h in held if h.startswith("from-zarr"))
    # which loads ran on each worker
    per = {}
    for r in d["where"]["rows"]:
        if r[2] == "processing" and "from-zarr" in r[1] and "original" not in r[1]:
            per.setdefault(r[3][-5:], []).append(int(short(r[1]).split("(")[1][:-1]))
    print(f"{f.split('/')[-1]:18s} load {d['load1']:5.2f} wall {d['wall_s']:5.2f} managed {d['peak_managed_mb']:6.1f} moved {d['transferred_mb']:6.1f} "
          f"busiest holds loads {loads} + {[h for h in held if not h.startswith('from-zarr')]}  loads/worker {sorted(per.values())}")
    rows.setdefault(tag, []).append(d["peak_managed_mb"])
for t, v in rows.items():
    print(t, "managed", [round(x) for x in v], "median", round(statistics.median(v), 1))
