"""(cpu38a) Books.place's calls in one twin run, by caller and by shape: how many
workers each asks (its "withheld" log entries), how many of those _admits answered
anew (the rest: kept refusals), partners / candidates, awaited, complete.
PYTHONPATH=<src> python bench/results/cpu38a-tools/place_calls.py [WORKLOAD STEPS WORKERS]"""
import collections, sys
from tidegate import books
from tidegate.sim import simulate
from tidegate.sim.model import build_model
from tidegate.sim.workloads import build

name = sys.argv[1] if len(sys.argv) > 1 else "anomaly"
steps = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
workers = int(sys.argv[3]) if len(sys.argv) > 3 else 100
place, adm = books.Books.place, books.Books._admits
stats = collections.defaultdict(lambda: collections.Counter())
cur = [0]


def counted_admits(self, *a, **k):
    cur[0] += 1
    return adm(self, *a, **k)


def timed(self, task, known, group, partners, candidates, *a, **k):
    caller = sys._getframe(1).f_code.co_name
    n0 = len(self.log)
    last = self.log[-1] if self.log else None
    cur[0] = 0
    cands = list(candidates)
    out = place(self, task, known, group, partners, cands, *a, **k)
    # entries appended (the deque is bounded: count from the end)
    entries = 0
    for e in reversed(self.log):
        if e is last:
            break
        entries += 1
    kind = "none" if not partners else ("one" if len(partners) == 1 else "many")
    key = (caller, kind)
    s = stats[key]
    s["calls"] += 1
    s["withheld"] += sum(1 for e in list(self.log)[-entries:] if e[1] == "withheld") if entries else 0
    s["admits"] += cur[0]
    s["placed"] += out is not None
    s["cands"] += len(cands)
    s["awaited"] += bool(k.get("commits") or (len(a) > 6 and a[6])) and self.combines is not None
    return out


books.Books.place = timed
books.Books._admits = counted_admits
w = build(name, steps, 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
r = simulate(model, workers=workers, threads_per_worker=4, policy="tidegate",
             bandwidth="1GB/s", record_memory=False, processes=1)
T = len(r.trace.tasks)
print(f"{books.__file__} tasks {T}")
for key, s in sorted(stats.items(), key=lambda kv: -kv[1]["withheld"]):
    c = s["calls"]
    print(f"{key[0]:>22} {key[1]:>5} calls {c:6d} ({c / T:.3f}/task) withheld {s['withheld'] / T:.3f}/task "
          f"admits-anew {s['admits'] / T:.3f}/task placed {s['placed']} cands/call {s['cands'] / c:.1f} "
          f"commits {s['awaited']}")
