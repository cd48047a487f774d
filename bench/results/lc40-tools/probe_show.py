"""A probe run's decisions: roots' _place answers (with _by_held's measures) and combines'
non-rootish answers, in time order, beside loads.py's summary."""
import json, re, sys
def short(k):
    m = re.search(r"'([a-z_\-]+?)-?[0-9a-f]{32}', (\d+)", k)
    return (m.group(1) + "(" + m.group(2) + ")") if m else k[:24]
for f in sys.argv[1:]:
    d = json.load(open(f))
    t0 = d["where"]["rows"][0][0]
    for e in d.get("probe", []):
        t, k, kind = e[0] - t0, short(e[1]), e[2]
        if kind == "place":
            print("  %.3f %-16s place -> %s partners %s  state %s" % (t, k, e[3], e[4], e[5]))
        elif kind == "by_held":
            print("  %.3f %-16s   by_held partners %s est %s held %s -> %s" % (t, k, e[3], e[4], e[5], e[6]))
        elif kind == "non_rootish":
            print("  %.3f %-16s non_rootish inputs on %s -> %s  state %s" % (t, k, e[3], e[4], e[5]))
        else:
            print("  %.3f %-16s %s %s" % (t, k, kind, e[3:]))
