"""The combine view's asks (Books.awaits) on a twin run: how many are made inside Books.place
calls that end refused (None), and how many repeat an ask of the same worker with nothing
of what it reads changed meanwhile by the measures a view memo could key on: dask's
transitions (the last transition_log entry: appended after each transition), replicas added
or dropped (the plugin's replica hooks), steals confirmed (stealing.move_task_confirm sets
processing_on without a transition), combines noted (_note_combine). "same answer": such a
repeat answered as the last ask did (it must, for the key to be exact).
    PYTHONHASHSEED=0 PYTHONPATH=src python bench/results/cpu39c-tools/view_stats.py anomaly 1 100"""
import sys

from distributed import stealing

from tidegate import books as bm
from tidegate.distributed import hooks, placement
from tidegate.sim import simulate
from tidegate.sim.model import build_model
from tidegate.sim.workloads import build

STEPS = {"stack-sum": 2000, "slice-add": 2000, "anomaly": 1000, "rechunk-add": 1000}
name, scale, workers = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
st = {"awaits": 0, "in refused place": 0, "repeat, nothing changed": 0, "same answer": 0,
      "refused places": 0, "places": 0}
events = [0]
changed: dict = {}  # key -> events[0] at its last change (a transition other than
# processing -> memory, which leaves the view's counts as they were; a replica; a steal)
st["repeat, its keys unchanged"] = 0
st["  same answer"] = 0
st["answer as last ask"] = 0
seen_keys: dict = {}
plugins = []
depth = [0]
last: dict = {}

place, awaits = bm.Books.place, bm.Books.awaits


def p(self, *a, **k):
    st["places"] += 1
    depth[0] += 1
    n0 = st["awaits"]
    try:
        out = place(self, *a, **k)
    finally:
        depth[0] -= 1
    if out is None:
        st["refused places"] += 1
        st["in refused place"] += st["awaits"] - n0
    return out


def aw(self, w):
    st["awaits"] += 1
    out = awaits(self, w)
    st["answered True"] = st.get("answered True", 0) + bool(out)
    st["keys read"] = st.get("keys read", 0) + len(plugins[0]._combines.get(w, {}))
    s = plugins[0].scheduler
    log = s.transition_log
    key = (log[-1] if log else None, events[0])
    was = last.get(w)
    if was is not None and was[0][0] is key[0] and was[0][1] == key[1]:
        st["repeat, nothing changed"] += 1
        st["same answer"] += was[1] == out
    last[w] = (key, out)
    # the keys the view reads for w: its noted combines, their inputs, 4 levels down
    combs = plugins[0]._combines.get(w, {})
    keys = set(combs)
    todo = [(d, 4) for d in combs.values()]
    while todo:
        d, depth_ = todo.pop()
        for x in d.dependencies:
            if x.key not in keys:
                keys.add(x.key)
                if depth_ > 1:
                    todo.append((x, depth_ - 1))
    prev = seen_keys.get(w)
    if prev is not None:
        st["answer as last ask"] += prev[2] == out
        if prev[0] == frozenset(combs) and all(changed.get(k, -1) < prev[1] for k in prev[3]):
            st["repeat, its keys unchanged"] += 1
            st["  same answer"] += prev[2] == out
    events[0] += 1
    seen_keys[w] = (frozenset(combs), events[0], out, keys)
    return out


bm.Books.place, bm.Books.awaits = p, aw
install = hooks.Plugin.install


def recording(self, scheduler, apply=None):
    plugins.append(self)
    return install(self, scheduler, apply)


hooks.Plugin.install = recording
replicas = placement.Placement._replicas


def counted(self, original):
    f = replicas(self, original)

    def g(*a):
        events[0] += 1
        changed[a[0].key] = events[0]
        return f(*a)
    g.__name__, g.__wrapped__ = f.__name__, f.__wrapped__
    return g


placement.Placement._replicas = counted
confirm = stealing.WorkStealing.move_task_confirm


def c(self, key, *a, **k):
    events[0] += 1
    changed[key] = events[0]
    a = (key, *a)
    return confirm(self, *a, **k)


stealing.WorkStealing.move_task_confirm = c
note = hooks.Plugin._note_combine


def nc(self, *a):
    events[0] += 1
    return note(self, *a)


hooks.Plugin._note_combine = nc
transition = hooks.Plugin.transition


def tr(self, key, start, finish, *a, **k):
    events[0] += 1
    st["transitions seen"] = st.get("transitions seen", 0) + 1
    if not (start == "processing" and finish == "memory"):
        changed[key] = events[0]
    return transition(self, key, start, finish, *a, **k)


hooks.Plugin.transition = tr
w = build(name, int(STEPS[name] * scale), 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
r = simulate(model, workers=workers, threads_per_worker=4, policy="tidegate",
             bandwidth="1GB/s", record_memory=False)
n = len(r.trace.tasks)
print(n, "tasks;", {k: (v, round(v / n, 4)) for k, v in st.items()})
