import json, re, statistics, sys
q = {}
for line in open("/work/wt/anom28/bench/results/lvl27-namings-final.txt"):
    m = re.match(r"^(\S+) (\d) (\{.*\})$", line.strip())
    if m:
        q[(m.group(1), m.group(2))] = json.loads(m.group(3))["queue"]
for f in sys.argv[1:]:
    rows = {}
    for line in open(f):
        m = re.match(r"^(\S+) (\d) (\{.*\})$", line.strip())
        if m:
            rows.setdefault(m.group(1), []).append((m.group(2), json.loads(m.group(3))["tidegate"]))
    out = []
    for size, rs in rows.items():
        pk = [t[0] / q[(size, n)][0] for n, t in rs]
        mk = [t[1] / q[(size, n)][1] for n, t in rs]
        out.append(f"{size} peak {statistics.median(pk):.3f} ({min(pk):.3f}-{max(pk):.3f}) time {statistics.median(mk):.3f}")
    print(f.split('/')[-1] + ": " + " | ".join(out))
