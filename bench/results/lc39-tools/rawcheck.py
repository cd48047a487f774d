"""Per rep2 run: does any pair of copies from one sender overlap by the raw one-clock spans
(first time in flight to memory, from the worker plugin) and by the log less delay now?"""
import json, sys
for f in sys.argv[1:]:
    d = json.load(open(f))
    key = d["moves"][0][1]
    spans = []
    for dest, L in d["logs"].items():
        first = stop = None
        for k, s, e, t, _ in L["raw"]:
            if k != key:
                continue
            if e == "flight" and first is None:
                first = t
            if s == "flight" and e == "memory":
                stop = t
        for k, who, a, b in L["log"]:
            if k == key:
                spans.append((who, first, stop, a - L["delay"], b - L["delay"]))
    raw = log = 0
    for i, (a, s1, e1, ls1, le1) in enumerate(spans):
        for b, s2, e2, ls2, le2 in spans[i + 1:]:
            if a == b:
                raw += s1 < e2 and s2 < e1
                log += ls1 < le2 and ls2 < le1
    print(f, "copies", len(spans), "same-sender overlaps: raw", raw, "log-less-delay-now", log)
