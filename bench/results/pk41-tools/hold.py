"""Per-worker holdings over time from a trace_twin --json: blocks (random_sample) and
interiors (getitem, 8 MB) held, from each key's end to its last dependent's end."""
import json, sys, ast, collections
import dask.array as da
import numpy as np
def _laplace(x):
    y = np.zeros_like(x)
    return y
def stencil(side=6000, chunk=1000):
    a = da.random.RandomState(2).random((side, side), chunks=chunk)
    return a.map_overlap(_laplace, depth=1, boundary="none").std(axis=0)
from dask.core import get_dependencies
g = dict(stencil().__dask_graph__())
deps = {k: get_dependencies(g, k) for k in g}
def base(k):
    return (k[0].rsplit('-', 1)[0] if isinstance(k, tuple) else k.rsplit('-', 1)[0], k[1:] if isinstance(k, tuple) else ())
dependents = collections.defaultdict(set)
for k, ds in deps.items():
    for d in ds:
        dependents[base(d)].add(base(k))
def short(b):
    n, idx = b
    return n.split('-')[0], idx
for path in sys.argv[1:]:
    d = json.load(open(path))
    tasks = {}
    for key, w, th, s, e, nb in d['tasks']:
        k = ast.literal_eval(key) if key.startswith('(') else key
        if isinstance(k, tuple):
            k = (k[0].rsplit('-', 1)[0],) + k[1:]
            b = (k[0].rsplit('-', 1)[0], k[1:])
        else:
            b = (k.rsplit('-', 1)[0], ())
        tasks[b] = (w, s, e, nb)
    ev = collections.defaultdict(list)
    for b, (w, s, e, nb) in tasks.items():
        if nb < 1e6: continue
        ends = [tasks[c][2] for c in dependents[b] if c in tasks]
        free = max(ends) if ends else d['makespan']
        ev[w].append((e, +1, short(b)[0], b))
        ev[w].append((free, -1, short(b)[0], b))
    print(path, d['makespan'], [p // 1_000_000 for p in d['peaks']])
    for w in sorted(ev):
        cnt = collections.Counter(); best = (0, None, None)
        line = []
        for t, s, kind, b in sorted(ev[w], key=lambda x: (x[0], x[1])):
            cnt[kind] += s
            tot = sum(cnt.values())
            if tot > best[0]: best = (tot, t, dict(cnt))
            line.append((round(t, 4), dict(cnt)))
        print(' ', w, 'peak keys', best)
        if '-v' in sys.argv[0:1] or len(sys.argv) > 1 and 'V' in __import__('os').environ:
            for x in line: print('     ', x)
