import json, sys, re
from collections import defaultdict
d = json.load(open(sys.argv[1]))
print(d["mode"], d["sets"], "load", round(d["load1"], 2), "->", round(d["load1_end"], 2), "wall", round(d["wall_s"], 2),
      "managed", round(d["peak_managed_mb"], 1), {w[-5:]: round(v) for w, v in d["managed_mb"].items()}, "moved", round(d["transferred_mb"], 1))
rows = d["where"]["rows"]
t0 = min(r[0] for r in rows)
def short(k):
    m = re.match(r"\('([a-z_\-]+?)-?[0-9a-f]{32}', (.*)\)", k)
    if m: return m.group(1) + "(" + m.group(2).split(",")[0] + ")"
    m = re.match(r"([a-z_\-]+?)-?[0-9a-f]{32}", k)
    return m.group(1) if m else k[:30]
per = defaultdict(list)
for r in rows:
    if r[2] == "processing":
        per[r[3]].append((r[0] - t0, short(r[1])))
for w in sorted(per):
    tl = d["timeline"].get(w, {})
    print(f"== {w[-5:]} peak managed {tl.get('peak', 0)/2**20:.0f} MiB; at peak: "
          + ", ".join(f"{short(k)}:{v/2**20:.0f}" for k, v in tl.get("at_peak", [])))
    print("   " + " ".join(f"{t:.3f}:{k}" for t, k in per[w] if not k.startswith("store") or True))
if len(sys.argv) > 2:
    for e in d["where"].get("log", []):
        if "from-zarr" in e[0] and "original" not in e[0]:
            print("  LOG", short(e[0]), e[1], e[2][-5:] if len(e) > 2 else "", *[x[-12:] for x in e[3:]])
