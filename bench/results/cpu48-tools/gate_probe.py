"""(cpu48) Which inputs of Placement._still_withheld change between its asks of one
withheld root: for each repeated still-withheld answer, the parts of a snapshot that
moved since the last ask (the same ``_withheld`` entry). PYTHONHASHSEED=0
PYTHONPATH=<src> python gate_probe.py W SCALE WORKERS"""
import collections, os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import plugin_ops  # noqa: E402
from tidegate.sim import simulate  # noqa: E402
from tidegate.sim.model import build_model  # noqa: E402
from tidegate.sim.workloads import build  # noqa: E402
from tidegate.distributed import placement  # noqa: E402
from tidegate.distributed.tasks import _returned  # noqa: E402

name, scale, workers = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
n = collections.Counter()
last = {}
orig = placement.Placement._still_withheld
NAMES = ("counts", "opens", "moved", "walks", "splits", "restricts", "deps")


def probe(self, ts, withheld, stimulus_id):
    out = orig(self, ts, withheld, stimulus_id)
    n["asks"] += 1
    if out is None:
        n["not still"] += 1
        last.pop(ts.key, None)
        return out
    _, entry, lacks, further, first = withheld
    snap = (tuple(sorted(self._counts.items())),
            self.books.opens(lacks) if further else 0,
            self._moved, self._walks.get(ts.key) is entry,
            None if first is None else (_returned(first.group), self._size(ts)),
            self._broadcast.restricts(self.scheduler, ts), len(ts.dependencies))
    n["still"] += 1
    if first is not None:
        n["still, first kept"] += 1
    was = last.get(ts.key)
    if was is not None and was[0] is withheld:
        n["still, asked before"] += 1
        same = [a == b for a, b in zip(was[1], snap)]
        if all(same):
            n["nothing changed"] += 1
        elif all(s for s, k in zip(same, NAMES) if k != "moved"):
            n["only _moved changed"] += 1
        for k, s in zip(NAMES, same):
            if not s:
                n["changed: " + k] += 1
    last[ts.key] = (withheld, snap)
    return out


placement.Placement._still_withheld = probe
w = build(name, int(plugin_ops.STEPS[name] * scale), 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
r = simulate(model, workers=workers, threads_per_worker=4, policy="tidegate",
             bandwidth="1GB/s", record_memory=False)
T = len(r.trace.tasks)
print(f"{name} {workers} x 4 scale {scale}: {T} tasks")
for k, v in sorted(n.items()):
    print(f"  {k:28s} {v:7d}  {v / T:.3f} a task")
