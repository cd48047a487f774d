"""Runs where a worker loaded 4 roots: the 4th root, where its group's other loads were
sent before it, and the books log entries of its last decision (withheld ... placed)."""
import json, re, sys
def short(k):
    m = re.search(r"'([a-z_\-]+?)-?[0-9a-f]{32}', (\d+)", k)
    return (m.group(1) + "(" + m.group(2) + ")") if m else k[:24]
for f in sys.argv[1:]:
    d = json.load(open(f))
    rows = d["where"]["rows"]; t0 = rows[0][0]
    sent = {}
    for r in rows:
        if r[2] == "processing" and short(r[1]).startswith("from-zarr("):
            sent.setdefault(short(r[1]), (r[0] - t0, (r[3] or "")[-5:]))
    order = sorted(sent.items(), key=lambda kv: kv[1][0])
    per = {}
    for k, (t, w) in order:
        per.setdefault(w, []).append(k)
    for w, ks in per.items():
        if len(ks) >= 4:
            k4 = ks[3]; i = int(k4[10:-1]); g = i // 4
            t4 = sent[k4][0]
            before = {k: sent[k][1] for k, _ in order if int(k[10:-1]) // 4 == g and sent[k][0] < t4}
            log = [e for e in d["where"].get("log", []) if short(e[0]) == k4]
            last = []
            for e in log:
                if e[1] == "placed":
                    stim = e[-1]
                    last = [(x[1], x[2][-5:]) for x in log if x[-1] == stim and x[1] in ("withheld", "placed")]
                    break
            print("%s peak %.1f: %s's 4th load %s at %.2f; its group's earlier loads on %s; last decision %s" % (
                f.split("/")[-1], d["peak_managed_mb"], w, k4, t4, before, last))
