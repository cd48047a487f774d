import json,sys
d=json.load(open(sys.argv[1]))
for c in d['cells']:
    n=len(c['runs']); oo=no=0; lst=[]
    for r in c['runs']:
        q=max(r['queue']['peaks']); o=max(r['old']['peaks']); nw=max(r['new']['peaks'])
        oo+= o>q+1e6; no+= nw>q+1e6
        if nw>q+1e6 and not o>q+1e6: lst.append('n%ds%d'%(r['naming'],r['seed']))
    print(c['shape'],c['lag'],'runs',n,'over queue peak by >1MB: old',oo,'new',no,'newly over:',lst)
