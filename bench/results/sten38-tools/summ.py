import json,sys
d=json.load(open(sys.argv[1])); key=sys.argv[2] if len(sys.argv)>2 else 'old'
for c in d['cells']:
    rows=[]
    for r in c['runs']:
        q=r['queue']; o=r[key]
        rows.append((o['makespan']/q['makespan'], max(o['peaks'])/max(q['peaks']), r['naming'], r['seed'], q['makespan'], o['makespan'], max(q['peaks'])>>20, max(o['peaks'])>>20))
    rows.sort(reverse=True)
    print(c['workload'], c['shape'], c['lag'])
    for x in rows[:8]: print('  t %.3f p %.3f n%d s%d q %.4f %s %.4f  peakMB q %d t %d' % (x[0],x[1],x[2],x[3],x[4],key,x[5],x[6],x[7]))
