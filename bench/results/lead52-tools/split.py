"""Split a module's class into mixins by method name (session 52): placement.py or books.py.
Usage: split.py SRC OUTDIR placement|books

Each top-level helper goes to the lowest module using it (ORDER), others import it; each
module gets placement.py's imports, pruned by ruff (F401) afterwards."""
import ast
import re
import sys

SRC = sys.argv[1]
WHICH = sys.argv[3] if len(sys.argv) > 3 else "placement"
ORDER = ["walks", "held_choice", "consumers", "regions", "placement"]
CLASSES = {"walks": "Walks", "held_choice": "HeldChoice", "consumers": "Consumers",
           "regions": "Regions", "placement": "Placement"}
GROUPS = {
    "regions": "_spread_at_once _caps_summed _workers_moved _region_of _region_entry "
               "_regions_of _region_place _caps _wide_books",
    "consumers": "_decide_worker_non_rootish _cut_holder _spread_off _paced_off _by_pace "
                 "_off_lagging _combine_elsewhere _idle_load _kept_load _kept_whole_load "
                 "_fewer_readers",
    "walks": "_walk _further _gathers _gather_share _further_plan _keep_walk _watch "
             "_looked_at _kept_walk _further_anew _audited _forget_walks _replicas _partners "
             "_plan _kept _splits _forget_plans",
    "held_choice": "_held_here _by_held _idle_takes _reads_slower _paced_keeps _off_slower "
                   "_faster _unknown_pass _commits _first_share _heavier _unheavy",
}
DOCS = {
    "walks": '''"""The plugin's walks of a root's graph: its meeting plan (which roots its data meets,
where their consumers wait: policy.meeting_plan), the further walks beyond it and the
gathers of a store's slices, kept and reused while the graph holds (bounded:
``CHAINS_KEPT``, ``WALKS_KEPT``).

A mixin of :class:`tidegate.distributed.placement.Placement`; the walks read dask's
``TaskState``s, the policy decides from them.
"""
''',
    "held_choice": '''"""Which partner's worker a root joins when several hold its partners' data: by the
bytes each holds (policy.places_by_held), the pace of slower workers, an idle worker's
share and a reduction's first share (policy.over_first_share).

A mixin of :class:`tidegate.distributed.placement.Placement`.
"""
''',
    "consumers": '''"""Where a task after the roots runs: dask's ``decide_worker_non_rootish`` as the plugin
installs it, moved where the policy says (a cut beside its holder, a fan-out spread, a
lagging worker's tasks paced off, a combine beside its held inputs, a tie to the input of
fewest readers).

A mixin of :class:`tidegate.distributed.placement.Placement`.
"""
''',
    "regions": '''"""Compact regions: a spread group cut into one region a worker (policy.compact_regions)
and its roots placed in their region's worker, under policy.region_cap.

A mixin of :class:`tidegate.distributed.placement.Placement`.
"""
''',
}
CLASS_DOCS = {
    "walks": "Plugin's walks and meeting plans (state set up by Plugin.__init__).",
    "held_choice": "Plugin's choice among its partners' workers by held bytes and pace.",
    "consumers": "Plugin's placement of the tasks after the roots.",
    "regions": "Plugin's compact regions of spread groups.",
}
if WHICH == "books":
    ORDER = ["books_admission", "books_placement", "books"]
    CLASSES = {"books_admission": "BooksAdmission", "books_placement": "BooksPlacement",
               "books": "Books"}
    GROUPS = {
        "books_admission": "admits _admits refuses_further refusal_inputs burst_cuts awaits "
                           "may_progress may_take_spread _third _beside_light _beside_wide "
                           "_holds_least may_take_some",
        "books_placement": "place _kept_step opens _unit reserved _place_split _placed",
    }
    FIXED = {"InvalidTransition": "books", "WorkerBook": "books", "Limits": "books",
             "LOG_SIZE": "books", "_NO_RECORD": "books"}
    DOCS = {
        "books_admission": '''"""The books' admission: may a worker take a root now (``admits``), may it take
one more spread root or any at all (``may_take_spread``, ``may_take_some``), and the
refusals of further meetings (``refuses_further``).

A mixin of :class:`tidegate.books.Books`: pure, as books.py (its rules hold here).
"""
''',
        "books_placement": '''"""The books' placement of a root: which worker among its partners' and the candidates
(``place``), the meetings it reserves, and a wave split across workers.

A mixin of :class:`tidegate.books.Books`: pure, as books.py (its rules hold here).
"""
''',
    }
    CLASS_DOCS = {"books_admission": "Books' admission of roots.",
                  "books_placement": "Books' placement of roots."}
else:
    FIXED = {}
MAIN = ORDER[-1]
where = {n: m for m, names in GROUPS.items() for n in names.split()}

text = open(SRC).read()
lines = text.splitlines(keepends=True)
tree = ast.parse(text)


def span(node, prev_end):
    """Lines of node with the comment/blank lines above it back to prev_end."""
    start = node.lineno - 1
    if getattr(node, "decorator_list", None):
        start = node.decorator_list[0].lineno - 1
    s = start
    while s > prev_end and (lines[s - 1].strip().startswith("#") or not lines[s - 1].strip()):
        s -= 1
    while s < start and not lines[s].strip():
        s += 1
    return s, node.end_lineno


body = tree.body
first = next(i for i, n in enumerate(body)
             if not isinstance(n, (ast.Expr, ast.ImportFrom, ast.Import)))
header_end = body[first - 1].end_lineno
doc_end = body[0].end_lineno
imports = "".join(lines[doc_end:header_end])
top = {}  # name -> (text)
top_order = []
prev = header_end
cls = None
for n in body[first:]:
    s, e = span(n, prev)
    prev = e
    if isinstance(n, ast.ClassDef) and n.name == CLASSES[MAIN]:
        cls = n
        continue
    name = n.name if hasattr(n, "name") else n.targets[0].id
    top[name] = "".join(lines[s:e])
    top_order.append(name)

members = {m: [] for m in ORDER}
prev = cls.body[0].end_lineno  # (after the class docstring)
cls_doc = "".join(lines[cls.body[0].lineno - 1:cls.body[0].end_lineno])
for n in cls.body[1:]:
    s, e = span(n, prev)
    prev = e
    name = n.name if hasattr(n, "name") else (n.targets[0].id if isinstance(n, ast.Assign)
                                               else n.target.id)
    members[where.get(name, MAIN)].append("".join(lines[s:e]))

home = {}
for name in top_order:
    pat = re.compile(r"\b%s\b" % re.escape(name))
    users = [m for m in ORDER if any(pat.search(t) for t in members[m])
             or any(pat.search(top[o]) for o in top_order if home.get(o) == m and o != name)]
    home[name] = FIXED.get(name) or (users[0] if users else MAIN)
# a helper used by another helper's home lower down: move it there
changed = True
while changed:
    changed = False
    for name in top_order:
        pat = re.compile(r"\b%s\b" % re.escape(name))
        for o in top_order:
            if o != name and name not in FIXED and pat.search(top[o]) \
                    and ORDER.index(home[o]) < ORDER.index(home[name]):
                home[name] = home[o]
                changed = True

out = {}
for m in ORDER:
    own = [top[n] for n in top_order if home[n] == m]
    below = [n for n in top_order if ORDER.index(home[n]) < ORDER.index(m)]
    imp = imports
    by_mod = {}
    for n in below:
        by_mod.setdefault(home[n], []).append(n)
    for mod, names in by_mod.items():
        imp += "from .%s import %s\n" % (mod, ", ".join(names))
    if m == MAIN:
        mixins = [x for x in ORDER if x != MAIN]
        if WHICH == "placement":
            mixins = ["regions", "consumers", "walks", "held_choice"]
        bases = ", ".join(CLASSES[x] for x in mixins)
        for x in mixins:
            imp += "from .%s import %s\n" % (x, CLASSES[x])
        head = "class %s(%s):\n%s\n" % (CLASSES[MAIN], bases, cls_doc)
    else:
        head = "class %s:\n    \"\"\"%s\"\"\"\n\n" % (CLASSES[m], CLASS_DOCS[m])
    body_text = head + "\n".join(members[m])
    out[m] = (DOCS[m] if m != MAIN else "".join(lines[:doc_end])) + "\n" + imp \
        + "\n\n" + "\n\n\n".join(own) + ("\n\n\n" if own else "") + body_text
    open(sys.argv[2] + "/%s.py" % m, "w").write(out[m])
    print(m, out[m].count("\n"), "lines; helpers:", [n for n in top_order if home[n] == m])
