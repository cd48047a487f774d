import re, sys
for l in open(sys.argv[1]):
    if '|' not in l: continue
    a,b,_=l.split('|')
    o=re.sub(r'.*old ','',a).strip(); n=re.sub(r'new ','',b).strip()
    o=re.sub(r'moved.*','',o); n=re.sub(r'moved.*','',n)
    print(l.split(' n=')[0], 'SAME' if o==n else f'{o} -> {n}')
