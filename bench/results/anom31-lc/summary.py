import json, glob, statistics
rows = {}
for f in sorted(glob.glob(__import__('os').path.join(__import__('os').path.dirname(__file__) or '.', '*-r*.json'))):
    tag = f.split('/')[-1].split('-r')[0]; r = f.split('-r')[-1].split('.')[0]
    d = json.load(open(f))['median']['seed-anomaly']
    for mode, v in d.items():
        rows.setdefault((tag, mode), []).append((r, v))
        print(f"{tag:5s} r{r} {mode:9s} RSS {v['peak_rss_mb']:6.1f} managed {v['peak_managed_mb']:6.1f} wall {v['wall_s']:5.2f} moved {v['transferred_mb']:6.1f} load1 {v['load1']:.1f}")
print()
for (tag, mode), xs in sorted(rows.items()):
    m = lambda k: statistics.median(v[k] for _, v in xs)
    print(f"{tag:5s} {mode:9s} n={len(xs)} median RSS {m('peak_rss_mb'):6.1f} managed {m('peak_managed_mb'):6.1f} wall {m('wall_s'):5.2f} moved {m('transferred_mb'):6.1f}")
for tag in ('base', 'new'):
    q = dict(rows.get((tag, 'queue'), [])); t = dict(rows.get((tag, 'tidegate'), []))
    for k in ('peak_rss_mb', 'peak_managed_mb', 'wall_s', 'transferred_mb'):
        rs = [t[r][k] / q[r][k] for r in t if r in q and q[r][k]]
        if rs:
            print(f"{tag} tidegate/queue {k}: paired median {statistics.median(rs):.3f} ({min(rs):.3f}-{max(rs):.3f})")
