import sys,re,collections
def load(f):
    iv=collections.defaultdict(list); w=None
    for line in open(f):
        if line.startswith('== '): w=line.split()[1]
        m=re.match(r'\s+t(\d+) ([\d.]+)-([\d.]+) (\S+)',line)
        if m and w: iv[w].append((float(m[2]),float(m[3]),m[4]))
    return iv
for f in sys.argv[1:]:
    iv=load(f); end=max(b for v in iv.values() for a,b,_ in v)
    print(f, 'end', round(end,3))
    for w,v in sorted(iv.items()):
        row=[]
        for k in range(int(end/0.05)+1):
            lo,hi=k*0.05,(k+1)*0.05
            busy=sum(max(0,min(b,hi)-max(a,lo)) for a,b,_ in v)
            row.append(f"{busy/0.05:.1f}")
        loads=sum(1 for a,b,n in v if n.startswith('random'))
        print(' ',w[-6:], ' '.join(row))
