"""Per run: peak, loads per worker (in the order sent, with send times), the handle's worker,
each partial's worker and its chunk means' workers."""
import json, re, sys
def short(k):
    m = re.search(r"'([a-z_\-]+?)-?[0-9a-f]{32}', (\d+)", k)
    return (m.group(1) + "(" + m.group(2) + ")") if m else k[:24]
for f in sys.argv[1:]:
    d = json.load(open(f))
    rows = d["where"]["rows"]; t0 = rows[0][0]
    sent, done = {}, {}
    for r in rows:
        k = short(r[1])
        if r[2] == "processing": sent.setdefault(k, (r[0] - t0, (r[3] or "")[-5:]))
        elif r[2] == "memory": done[k] = (r[0] - t0, (r[3] or "")[-5:])
    ws = sorted({v[1] for v in done.values()})
    handle = [v[1] for k, v in done.items() if k.startswith("original")]
    per = {w: [(int(k[10:-1]), round(sent[k][0], 2)) for k in sorted(sent, key=lambda k: sent[k][0])
               if k.startswith("from-zarr(") and done[k][1] == w] for w in ws}
    print("%s peak %.1f wall %.2f load %.1f handle on %s" % (f.split("/")[-1], d["peak_managed_mb"], d["wall_s"], d["load1"], handle))
    for w in ws:
        print("   %s %s loads %s" % (w, round(d["managed_mb"].get([a for a in d["managed_mb"] if a.endswith(w)][0]), 1), per[w]))
    for i in range(3):
        ins = [done.get("mean_chunk(%d)" % j, (0, None))[1] for j in range(4 * i, 4 * i + 4)]
        p = done.get("mean_combine-partial(%d)" % i)
        print("   partial(%d) on %s at %.2f, means on %s" % (i, p[1], sent["mean_combine-partial(%d)" % i][0], ins))
    print("   aggregate on", done.get("mean_agg-aggregate(0)")[1])
