"""Per probe run: roots whose _by_held left p standing with other partners' workers more than
half a load over the least (leaves_partner's case), and where _place then put them."""
import json, re, sys
def short(k):
    m = re.search(r"'([a-z_\-]+?)-?[0-9a-f]{32}', (\d+)", k)
    return (m.group(1) + "(" + m.group(2) + ")") if m else k[:24]
for f in [a for a in sys.argv[1:] if not a.startswith("-")]:
    d = json.load(open(f))
    t0 = d["where"]["rows"][0][0]
    pr = d.get("probe", [])
    n = 0
    out = []
    for i, e in enumerate(pr):
        if e[2] != "by_held" or e[6] is not None or len(e[3]) < 2:
            continue
        partners, est, held = e[3], e[4], e[5]
        h = {a: v for a, v, *_ in held}
        least = min(h.values())
        p = max(partners, key=partners.get)
        heavy = [w for w in partners if w != p and least + est / 2 < h.get(w, 0)]
        nxt = pr[i + 1] if i + 1 < len(pr) and pr[i + 1][2] == "place" else None
        went = nxt[3] if nxt else "?"
        if heavy:
            n += 1
            out.append("   %.2f %s partners %s p %s heavy %s least %.1f held %s -> %s%s" % (
                e[0] - t0, short(e[1]), partners, p, heavy, least, h, went,
                "  <== HEAVY" if went in heavy else ""))
    print(f.split("/")[-1], "peak %.1f" % d["peak_managed_mb"], "cases", n, "placed on heavy", sum("HEAVY" in o for o in out))
    for o in out:
        if "HEAVY" in o or "-v" in sys.argv: print(o)
