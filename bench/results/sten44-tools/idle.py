"""Idle thread-ms per worker of trace_twin JSONs before the worker's last load starts, in
windows of 10 ms (threads idle x ms). python idle.py A.json [B.json ...]"""
import json, sys

for p in sys.argv[1:]:
    d = json.load(open(p))
    tasks = d["tasks"]
    threads = 8
    print(p, "makespan", round(d["makespan"], 4))
    for w in sorted({t[1] for t in tasks}):
        mine = [t for t in tasks if t[1] == w]
        last = max(t[3] for t in mine if "random_sample" in t[0])
        W = 0.01
        out = []
        total = 0.0
        for i in range(int(last / W) + 1):
            a, b = i * W, min((i + 1) * W, last)
            busy = sum(max(0.0, min(b, t[4]) - max(a, t[3])) for t in mine)
            idle = threads * (b - a) - busy
            total += idle
            out.append(f"{idle * 1000:4.0f}")
        print(" ", w[-6:], f"last load {last * 1000:.1f} idle {total * 1000:.0f} thread-ms:",
              " ".join(out))
