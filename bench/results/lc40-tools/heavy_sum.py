"""Per arm: leaves_partner's cases (a by_held decision leaving p standing while another
partners' worker holds over half a load more than the least) and where _place then put the
root: None (withheld / parked), p, the heavier partner's worker, another."""
import collections, glob, json, sys
for pat in sys.argv[1:]:
    c = collections.Counter(); runs = 0
    for f in sorted(glob.glob(pat)):
        try:
            d = json.load(open(f))
        except Exception:
            continue
        runs += 1
        pr = d.get("probe", [])
        for i, e in enumerate(pr):
            if e[2] != "by_held" or e[6] is not None or len(e[3]) < 2:
                continue
            partners, est, held = e[3], e[4], e[5]
            h = {a: v for a, v, *_ in held}
            least = min(h.values())
            p = max(partners, key=partners.get)
            heavy = [w for w in partners if w != p and least + est / 2 < h.get(w, 0)]
            if not heavy:
                continue
            nxt = pr[i + 1] if i + 1 < len(pr) and pr[i + 1][2] == "place" else None
            went = nxt[3] if nxt else "?"
            c["withheld" if went is None else "p" if went == p else "heavy" if went in heavy
              else "other"] += 1
    print(pat, runs, "runs:", dict(c))
