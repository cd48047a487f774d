import re,sys
def read(p):
    r={}
    for l in open(p):
        m=re.match(r"\s+([\d.]+) ops/task\s+([\d.]+) calls/task\s+\S+:\d+ (.*)$",l)
        if m: r[m.group(3)]=(float(m.group(1)),float(m.group(2)))
    return r
a=read(sys.argv[1]);b=read(sys.argv[2])
rows=[(b.get(k,(0,0))[0]-a.get(k,(0,0))[0],k,a.get(k,(0,0)),b.get(k,(0,0))) for k in set(a)|set(b)]
rows.sort()
for d,k,x,y in rows:
    if abs(d)>=0.5: print(f"{d:+8.1f}  {x[0]:7.1f} ({x[1]:.2f}) -> {y[0]:7.1f} ({y[1]:.2f})  {k}")
