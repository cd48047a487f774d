import json, collections, textwrap, sys
exec(open('/tmp/lead51/assign.py').read().split("owner = {}")[0])  # RANGES, mod_of, b
src = open('/tmp/lead51/policy_orig.py').read().splitlines()
ORDER = ["roots", "sizes", "place", "pace", "spread", "meetings", "partners", "further",
         "admit", "broadcast"]
DOC = {
 "roots": "Which tasks are roots (by structure, shared handles, targets) and how many a worker\nmay run at once (:class:`Policy`).",
 "sizes": "What a task's output weighs: data or not, joins of pieces, inputs not yet run; what to\ntell a user whose budget cannot hold one task.",
 "place": "Placement: which worker a root or a consumer goes to (partners, held bytes, combines,\nspreads off a busy holder); what to spill.",
 "pace": "Slow and lagging workers: paces compared, and where roots and consumers go instead.",
 "spread": "Roots whose data feeds several meetings (stencils, overlaps, pairs of arrays): when one\nmay load beside the others, and the caps, regions and waves that bound them.",
 "meetings": "Where a root's data meets other data: the graph walks (meeting plans, chains, halos,\nwaits for a root's own reduction).",
 "partners": "The roots a root meets and where they are held (partners, mirrored inputs).",
 "further": "Further meetings: the meeting beyond a root's own (the other side of a pair, a final\ngather) and the roots it needs.",
 "admit": "Admission: when a worker may take another root (the in-flight count, backlogs, passes\nthat complete a consumer, waves, splits).",
 "broadcast": "Copies of a widely shared input, holder to holder (a tree instead of every worker\npulling from the first holder).",
}
STD = {"heapq": "import heapq", "math": "import math", "operator": "import operator",
       "dataclass": "from dataclasses import dataclass", "compress": None, "islice": None,
       "Callable": None, "NamedTuple": None, "np": "import numpy as np"}
owner = {}
for x in b:
    if x['kind'] in ('Import', 'ImportFrom', 'Expr'):
        continue
    x['mod'] = mod_of(x['start'])
    for n in x['names']:
        owner[n] = x['mod']
mods = collections.defaultdict(list)
for x in b:
    if 'mod' in x:
        mods[x['mod']].append(x)
def wrap_import(prefix, names):
    line = prefix + ", ".join(names)
    if len(line) <= 100:
        return line
    body = textwrap.fill(", ".join(names), 95, initial_indent="    ", subsequent_indent="    ")
    return prefix + "(\n" + body + ",\n)"
exported = {}
for m in ORDER:
    xs = mods[m]
    reads = set().union(*(set(x['reads']) for x in xs))
    names = [n for x in xs for n in x['names']]
    exported[m] = names
    head = ['"""' + DOC[m] + '"""', "", "from __future__ import annotations"]
    std = []
    for k in ("heapq", "math", "operator"):
        if k in reads: std.append(f"import {k}")
    if "dataclass" in reads: std.append("from dataclasses import dataclass")
    it = [k for k in ("compress", "islice") if k in reads]
    if it: std.append("from itertools import " + ", ".join(it))
    ty = [k for k in ("Callable", "NamedTuple") if k in reads]
    if ty: std.append("from typing import " + ", ".join(ty))
    if std: head += [""] + std
    if "np" in reads: head += ["", "import numpy as np"]
    cross = collections.defaultdict(list)
    for r in sorted(reads):
        if r in owner and owner[r] != m:
            cross[owner[r]].append(r)
    if cross:
        head.append("")
        for o in ORDER:
            if o in cross:
                assert ORDER.index(o) < ORDER.index(m), (m, o)
                head.append(wrap_import(f"from .{o} import ", cross[o]))
    body = []
    for x in xs:
        body.extend(src[x['first'] - 1: x['end']])
    while body and not body[0].strip():
        body.pop(0)
    text = "\n".join(head) + "\n\n" + ("\n" if body[0].startswith(("def ", "class ", "@")) else "") + "\n".join(body) + "\n"
    open(f'src/tidegate/policy/{m}.py', 'w').write(text)
json.dump(exported, open('/tmp/lead51/exported.json', 'w'))
