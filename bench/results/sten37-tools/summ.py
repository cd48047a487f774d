import json,sys
d=json.load(open(sys.argv[1]))
for c in d['cells']:
    rows=[]
    for r in c['runs']:
        q=max(r['queue']['peaks']); o=max(r['old']['peaks']); n=max(r['new']['peaks'])
        rows.append((n/q-o/q, r['naming'], r['seed'], o/1e6, n/1e6, q/1e6, r['old']['makespan']/r['queue']['makespan'], r['new']['makespan']/r['queue']['makespan']))
    rows.sort(reverse=True)
    print(c['shape'], c['lag'], ' '.join(f"n{a}s{b}:{o:.0f}->{n:.0f}/{q:.0f}" for _,a,b,o,n,q,_1,_2 in rows[:4]), '| best', ' '.join(f"n{a}s{b}:{o:.0f}->{n:.0f}/{q:.0f}" for _,a,b,o,n,q,_1,_2 in rows[-2:]))
