"""Top-level blocks of policy.py with their line spans (leading comments included) and the
top-level names each block defines and reads."""
import ast, sys, json
src = open(sys.argv[1]).read()
lines = src.splitlines()
tree = ast.parse(src)
body = tree.body
defined = {}
blocks = []
prev_end = 0
for st in body:
    start = st.lineno
    if getattr(st, "decorator_list", None):
        start = min(d.lineno for d in st.decorator_list)
    # leading comments/blank lines since previous statement belong here
    names = set()
    if isinstance(st, (ast.FunctionDef, ast.ClassDef)):
        names.add(st.name)
    elif isinstance(st, (ast.Assign, ast.AnnAssign)):
        targets = st.targets if isinstance(st, ast.Assign) else [st.target]
        for t in targets:
            for n in ast.walk(t):
                if isinstance(n, ast.Name): names.add(n.id)
    reads = {n.id for n in ast.walk(st) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    blocks.append(dict(first=prev_end + 1, start=start, end=st.end_lineno, kind=type(st).__name__,
                       names=sorted(names), reads=sorted(reads)))
    prev_end = st.end_lineno
json.dump(blocks, open(sys.argv[2], "w"))
for b in blocks:
    print(b["first"], b["start"], b["end"], b["kind"], ",".join(b["names"]))
