import json, statistics as st, sys
b=json.load(open(sys.argv[1])); m=json.load(open(sys.argv[2]))
key=lambda c:(c['workload'],c['shape'],c['lag'])
B={key(c):c for c in b}; same=0; tot=0
ob=om=0; tb=tm=0
for c in m:
    k=key(c); rb=B[k]['runs']; rm=c['runs']; tot+=1
    ob+=sum(r['peak']>1.05 for r in rb); om+=sum(r['peak']>1.05 for r in rm)
    tb+=sum(r['makespan']>1.05 for r in rb); tm+=sum(r['makespan']>1.05 for r in rm)
    if rb==rm: same+=1; continue
    f=lambda rs,x:(st.median(r[x] for r in rs), max(r[x] for r in rs), sum(r[x]>1.05 for r in rs))
    print(f"{k[0]:17} {k[1]} {k[2]*1000:.0f}ms  time {f(rb,'makespan')[0]:.3f}/{f(rb,'makespan')[1]:.3f} ({f(rb,'makespan')[2]}) -> {f(rm,'makespan')[0]:.3f}/{f(rm,'makespan')[1]:.3f} ({f(rm,'makespan')[2]})   peak {f(rb,'peak')[0]:.2f}/{f(rb,'peak')[1]:.2f} ({f(rb,'peak')[2]}) -> {f(rm,'peak')[0]:.2f}/{f(rm,'peak')[1]:.2f} ({f(rm,'peak')[2]})  moved>q {sum(r['moved']>r['moved_queue'] for r in rb)}->{sum(r['moved']>r['moved_queue'] for r in rm)}")
print(f"identical cells {same}/{tot}; runs over 1.05 peak {ob}->{om}, time {tb}->{tm} (of {15*tot})")
