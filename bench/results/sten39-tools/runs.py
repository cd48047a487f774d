"""Per run of an ab_twin JSON: time and peak ratios old/new against queue, strict peak over (>1 MB)."""
import json, sys
d = json.load(open(sys.argv[1])); show = '-a' in sys.argv
for c in d['cells']:
    so = sn = to = tn = 0
    for r in c['runs']:
        q = r['queue']; o = r['old']; n = r['new']
        qp = max(q['peaks']); op = max(o['peaks']); np_ = max(n['peaks'])
        rt = (o['makespan'] / q['makespan'], n['makespan'] / q['makespan'])
        so += op > qp + 1e6; sn += np_ > qp + 1e6; to += rt[0] > 1.05; tn += rt[1] > 1.05
        flag = (op > qp + 1e6 or np_ > qp + 1e6 or rt[0] > 1.05 or rt[1] > 1.05)
        if show or flag:
            print(f"  n{r['naming']}s{r['seed']} time {rt[0]:.3f} -> {rt[1]:.3f}  peak q {qp/1e6:.0f} old {op/1e6:.0f} new {np_/1e6:.0f}")
    print(c['workload'], c['shape'], c['lag'], 'time over', to, '->', tn, ' peak over queue by >1MB', so, '->', sn)
