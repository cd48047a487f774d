import json, sys
d=json.load(open(sys.argv[1]))
for c in d['cells']:
    if c['same']: continue
    dt=[]; dp=[]
    for r in c['runs']:
        q=r['queue']
        o=r['old']['makespan']/q['makespan']; n=r['new']['makespan']/q['makespan']
        po=max(r['old']['peaks'])/max(q['peaks']); pn=max(r['new']['peaks'])/max(q['peaks'])
        if r['old']!=r['new']: dt.append(n-o); dp.append(pn-po)
    print(c['workload'],c['shape'],c['lag'],'runs moved',len(dt),'time delta min %.3f max %.3f'%(min(dt),max(dt)),'peak delta min %.3f max %.3f'%(min(dp),max(dp)))
