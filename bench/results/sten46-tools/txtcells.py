import sys,re
for p in sys.argv[1:]:
    rows=[l.split() for l in open(p) if l.startswith("   n")]
    cells=[]; cur=[]
    for l in open(p):
        if l.startswith("   n"): cur.append(l.split())
        elif l.startswith("stencil") or l.startswith(tuple("abcdefghijklmnopqrstuvwxyz")):
            if cur: cells.append((l.strip()[:40],cur)); cur=[]
    if cur: cells.append(("(running)",cur))
    for name,rs in cells:
        out=[]
        for side,(ti,pi) in (("old",(8,9)),("new",(13,14))):
            t=[float(r[ti])/float(r[3]) for r in rs]
            pk=sum(float(r[pi])>float(r[4])+1 for r in rs)
            out.append(f"{side} tover {sum(x>1.05 for x in t)} pkover {pk} sum {sum(float(r[ti]) for r in rs):.3f}")
        print(p, name, len(rs), " | ".join(out))
