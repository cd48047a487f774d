import json, sys, collections
def load(p):
    d = json.load(open(p))
    return d
for p in sys.argv[1:]:
    d = load(p)
    tasks = d["tasks"]
    ws = sorted({t[1] for t in tasks})
    end = d["makespan"]
    W = 0.01
    nb = int(end / W) + 1
    print(p, "makespan", round(end, 4))
    for w in ws:
        busy = [0.0] * nb
        loads = [0] * nb
        for key, wk, th, s, e, nbytes in tasks:
            if wk != w: continue
            if "random_sample" in key:
                loads[int(s / W)] += 1
            b = s
            while b < e:
                i = int(b / W); nxt = min(e, (i + 1) * W)
                busy[i] += nxt - b; b = nxt
        print(" ", w[-6:], "busy", " ".join(f"{x / W:3.1f}" for x in busy))
        print(" ", w[-6:], "load", " ".join(f"{x:3d}" for x in loads))
