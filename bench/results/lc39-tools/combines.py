"""Per lc_anom run: each mean_combine-partial's worker and where its chunk means were made,
and the managed peak's holdings on the busiest worker."""
import json, re, sys
def short(k):
    m = re.match(r"\('([a-z_\-]+?)-?[0-9a-f]{32}', (\d+)", k)
    return (m.group(1) + "(" + m.group(2) + ")") if m else k[:30]
for f in sys.argv[1:]:
    d = json.load(open(f))
    done = {}
    for r in d["where"]["rows"]:
        if r[2] == "memory":
            done[short(r[1])] = (r[3] or "")[-5:]
    print(f, "peak %.1f" % d["peak_managed_mb"])
    for i in range(3):
        ins = [done.get("mean_chunk(%d)" % j) for j in range(4 * i, 4 * i + 4)]
        print("   partial(%d) on %s, chunk means on %s" % (i, done.get("mean_combine-partial(%d)" % i), ins))
    print("   aggregate on", done.get("mean_agg-aggregate(0)"), "loads:",
          {w: sorted(int(k[10:-1]) for k, v in done.items() if k.startswith("from-zarr") and v == w) for w in set(done.values())})
