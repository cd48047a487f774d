"""vort19: the core's moves per group for one workload at one limit, in this process (inputs
written once under FOLDER): spills, drops, loads, re-runs, withdrawals, with their bytes.
DUMP=1 also prints the graph in priority order and every move with held bytes and ceiling.
WL=<workload> picks another workload (default vorticity).

    PYTHONPATH=src python bench/results/vort19_moves.py 140e6 40 /tmp/vort19-in40
"""
import sys, os, tempfile, json, collections, time
import tidegate
from tidegate import core as C
from tidegate.workloads import make_inputs, build
steps = int(sys.argv[2]) if len(sys.argv) > 2 else 40
limit = float(sys.argv[1])
folder = sys.argv[3] if len(sys.argv) > 3 else tempfile.mkdtemp()
if not os.path.exists(f"{folder}/a.zarr"):
    make_inputs(folder, steps)
cores = []
orig = C.Scheduler.__init__
def init(self, *a, **k):
    orig(self, *a, **k); cores.append(self)
C.Scheduler.__init__ = init
ev = collections.Counter(); evb = collections.Counter()
seq = []
for name, st in (("_spill_one", "spill"), ("_drop", "drop"), ("_load", "load"), ("_recompute", "recompute"), ("_withdraw", "withdraw"), ("_run", "run"), ("_release", "release")):
    f = getattr(C.Scheduler, name)
    def w(self, i, sid, actions, arg=None, f=f, st=st):
        g = self.graph.group_names[self._group[i]]
        ev[(st, g, bool(self.views[i]))] += 1
        evb[(st, g)] += self.nbytes[i]
        seq.append((st, i, self.nbytes[i], bool(self.views[i]), self.workers[0].held, self.ceiling[0], self.workers[0].budget))
        return f(self, i, sid, actions, arg)
    setattr(C.Scheduler, name, w)
    C.TRANSITIONS  # the table binds by name via getattr in __init__
y = build(os.environ.get("WL", "vorticity"), {n: f"{folder}/{n}.zarr" for n in "ab"}, folder)
stats = tidegate.RunStats()
t = time.perf_counter()
y.compute(scheduler="tidegate", num_workers=2, memory_limit=limit, stats=stats)
print("wall", round(time.perf_counter() - t, 2), "written MB", stats.spill_file_bytes / 1e6, "dropped MB", stats.bytes_dropped / 1e6,
      "recomputed", stats.tasks_recomputed, "peak", stats.peak_memory / 1e6 if stats.peak_memory else None, "fewest", stats.fewest_threads)
for k, v in sorted(ev.items()):
    print(k, v, round(evb[k[:2]] / 1e6), "MB")

if os.environ.get("DUMP"):
    c = cores[-1]; g = c.graph
    order = sorted(range(len(g)), key=lambda i: g.priority[i])
    idx = {i: n for n, i in enumerate(order)}
    for i in order:
        deps = [idx[d] for d in c._dependencies(i)]
        print(idx[i], str(g.keys[i])[:75], "root" if c._root[i] else "", "view" if c.views[i] else "", c.nbytes[i], "<-", deps, "const" if c._constant[i] else "")

    for st, i, n, v, held, ceil, bud in seq:
        print(f"{st:9} {idx[i]:4} {str(g.keys[i])[1:40]:40} {n/1e6:6.2f} {'view' if v else '    '} held {held/1e6:6.1f} ceil {ceil/1e6:6.1f} budget {bud/1e6:6.1f}")
