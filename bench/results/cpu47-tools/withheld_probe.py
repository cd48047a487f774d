"""(cpu47) How often poke re-asks a withheld root ("free workers", Placement._still_withheld)
with nothing it reads changed since its last ask: the counts of free workers
(Admission._counts), the free list, idle, the walk's looked tasks' move stamps.
PYTHONHASHSEED=0 PYTHONPATH=<src> python withheld_probe.py W SCALE WORKERS"""
import collections, os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import plugin_ops  # noqa: E402
from tidegate.sim import simulate  # noqa: E402
from tidegate.sim.model import build_model  # noqa: E402
from tidegate.sim.workloads import build  # noqa: E402
from tidegate.distributed import placement  # noqa: E402

name, scale, workers = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
n = collections.Counter()
last = {}
orig = placement.Placement._still_withheld


def probe(self, ts, withheld, stimulus_id):
    out = orig(self, ts, withheld, stimulus_id)
    n["asks"] += 1
    if out is None:
        n["not still"] += 1
        last.pop(ts.key, None)
        return out
    entry = withheld[1]
    looked = entry[3] or ()
    snap = (tuple(sorted(self._counts.items())), tuple(self._free), frozenset(self._idle),
            max((self._moves.get(k, 0) for k in looked), default=0))
    was = last.get(ts.key)
    n["still"] += 1
    if was is not None:
        n["still, asked before"] += 1
        same = [a == b for a, b in zip(was, snap)]
        if all(same):
            n["nothing read changed"] += 1
        else:
            for k, s in zip(("counts", "free", "idle", "moves"), same):
                if not s:
                    n["changed: " + k] += 1
    last[ts.key] = snap
    return out


placement.Placement._still_withheld = probe
w = build(name, int(plugin_ops.STEPS[name] * scale), 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
r = simulate(model, workers=workers, threads_per_worker=4, policy="tidegate",
             bandwidth="1GB/s", record_memory=False)
T = len(r.trace.tasks)
print(f"{name} {workers} x 4 scale {scale}: {T} tasks")
for k, v in n.items():
    print(f"  {k:28s} {v:7d}  {v / T:.3f} a task")
