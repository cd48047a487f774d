import sys
def load(fs):
    d = {}
    for f in fs:
        for l in open(f):
            p = l.split()
            if len(p) < 11: continue
            d[(p[1], p[2], p[3])] = (float(p[5]), float(p[7]), float(p[9]), p[10].split(":")[0])
    return d
a = load(sys.argv[1].split(",")); b = load(sys.argv[2].split(","))
moved = 0
for k in a:
    if k not in b: continue
    x, y = a[k], b[k]
    if x != y:
        moved += 1
        flag = " WORSE" if y[0] > max(x[0], 1.0) + 0.0005 or y[1] > max(x[1], 1.0) + 0.0005 or y[2] > max(x[2], 1.0) + 0.0005 else ""
        print(f"{k[0]:6} {k[1]:6} {k[2]}  time {x[0]:.3f} -> {y[0]:.3f}  peak {x[1]:.3f} -> {y[1]:.3f}  bytes {x[2]:.3f} -> {y[2]:.3f}  {x[3]} -> {y[3]}{flag}")
print(f"{moved} of {len([k for k in a if k in b])} moved")
