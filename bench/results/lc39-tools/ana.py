import json, sys, glob
for f in sys.argv[1:]:
    d = json.load(open(f))
    key = d["moves"][0][1] if d["moves"] else None
    print(f, d["c"], "load %.1f" % d["load"][0], "steals", len(d["sched"]["steals"]))
    t0 = min(m[3] for m in d["moves"])
    for dest, L in d["logs"].items():
        for k, who, a, b in L["log"]:
            if k == key:
                print("  log  dest", dest[-3:], "from", who[-3:], "start-off %.4f stop-off %.4f" % (a - L["delay"] - t0, b - L["delay"] - t0), "delay now %.4f" % L["delay"])
        for r in L["raw"]:
            if r[0] == key and r[2] != "released":
                print("  raw  dest", dest[-3:], r[1], "->", r[2], "%.4f" % (r[3] - t0), "delay then %.4f" % r[4])
    for n in d["sched"]["named"]:
        print("  named", n[1][-3:], "from", n[2][-3:], n[3])
