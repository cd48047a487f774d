import sys, re, collections
for f in sys.argv[1:]:
    w=None; d=collections.OrderedDict()
    for line in open(f):
        if line.startswith("== "): w=line.split()[1][-5:]; d[w]=[]
        m=re.match(r"\s+t(\d) ([\d.]+)-([\d.]+) (\S+)",line)
        if m and w: d[w].append((int(m[1]),float(m[2]),float(m[3]),m[4]))
    print(f)
    for w,ts in d.items():
        st=[t for t in ts if t[3].startswith("store")]
        if not st: continue
        print(w, "n=%d first %.2f last_end %.2f" % (len(st), min(t[1] for t in st), max(t[2] for t in st)),
              "starts", " ".join("%.1f"%t[1] for t in sorted(st,key=lambda t:t[1])))
