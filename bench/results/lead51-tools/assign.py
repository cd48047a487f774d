import json, sys, collections
b = json.load(open('/tmp/lead51/blocks.json'))
# (first defining line, last line) inclusive -> module
RANGES = [
    (2687, 2689, "pace"), (3203, 3521, "partners"),
    (4054, 4062, "meetings"),
    (18, 56, "roots"), (57, 81, "spread"), (82, 270, "roots"), (271, 962, "spread"),
    (963, 1448, "admit"), (1449, 1697, "sizes"), (1698, 1790, "roots"),
    (1791, 2105, "place"), (2106, 2450, "meetings"), (2451, 2689, "place"),
    (2690, 3202, "pace"), (3203, 3521, "meetings"), (3522, 3819, "further"), (3820, 3982, "meetings"),
    (3983, 4190, "admit"), (4191, 4215, "roots"), (4216, 4259, "sizes"),
    (4260, 99999, "broadcast"),
]
def mod_of(line):
    for a, z, m in RANGES:
        if a <= line <= z:
            return m
owner = {}
for x in b:
    if x['kind'] in ('Import', 'ImportFrom', 'Expr'):
        continue
    m = mod_of(x['start'])
    x['mod'] = m
    for n in x['names']:
        owner[n] = m
json.dump(owner, open('/tmp/lead51/owner.json', 'w'))
deps = collections.defaultdict(lambda: collections.defaultdict(set))
for x in b:
    if 'mod' not in x: continue
    for r in x['reads']:
        if r in owner and owner[r] != x['mod']:
            deps[x['mod']][owner[r]].add(r)
for m in sorted(deps):
    for o in sorted(deps[m]):
        print(f"{m} -> {o}: {len(deps[m][o])} {sorted(deps[m][o])[:12]}")
sizes = collections.Counter()
for x in b:
    if 'mod' in x: sizes[x['mod']] += x['end'] - x['first'] + 1
print(sizes)
