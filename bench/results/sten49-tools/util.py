"""Busy threads per 10 ms window and task kinds running, of trace_twin JSONs (one worker)."""
import json, sys, collections
W = float(sys.argv[1]); files = sys.argv[2:]
ds = [json.load(open(p)) for p in files]
end = max(d["makespan"] for d in ds)
print("win(ms) " + "  ".join(p.split('/')[-1][:10] for p in files))
for i in range(int(end / W) + 1):
    a, b = i * W, (i + 1) * W
    row = []
    for d in ds:
        busy = sum(max(0.0, min(b, t[4]) - max(a, t[3])) for t in d["tasks"]) / W
        kinds = collections.Counter(t[0].split("'")[1].split('-')[0] if "'" in t[0] else t[0][:8]
                                    for t in d["tasks"] if a <= t[3] < b)
        row.append(f"{busy:4.1f} " + ",".join(f"{k[:4]}{v}" for k, v in sorted(kinds.items())))
    print(f"{a*1000:5.0f}  " + " | ".join(f"{r:38s}" for r in row))
