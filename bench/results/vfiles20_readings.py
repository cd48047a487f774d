"""vfiles20: every footprint reading the governor keeps, per group (measure.Governor.budget
wrapped), for one run in this process: WL=<workload> (default stack-sum), inputs in
/tmp/vfiles20-in (bench/results/vfiles20_gate.py makes them).

    WL=stack-sum PYTHONPATH=src python bench/results/vfiles20_readings.py 300e6
"""
import os, sys, collections, time
import tidegate
from tidegate import measure as M
from tidegate.workloads import build
wl = os.environ.get("WL", "stack-sum"); limit = float(sys.argv[1])
log = []
orig = M.Governor.budget
def budget(self, held, backlog, ran, threads, upcoming, *a, **k):
    before = {g: list(v) for g, v in self._recent.items()}
    r = orig(self, held, backlog, ran, threads, upcoming, *a, **k)
    for g, v in self._recent.items():
        if list(v) != before.get(g):
            log.append((g, round(v[-1] / 1e6), tuple(sorted(set(ran))), round(held / 1e6)))
    return r
M.Governor.budget = budget
y = build(wl, {n: f"/tmp/vfiles20-in/{n}.zarr" for n in "ab"}, "/tmp/vfiles20-rd-out")
stats = tidegate.RunStats()
y.compute(scheduler=tidegate.get, num_workers=2, memory_limit=limit, stats=stats)
print("dropped", stats.bytes_dropped / 1e6, "gate", stats.gate_refusals)
by = collections.defaultdict(list)
for g, v, ran, held in log:
    by[g].append(v)
for g, v in by.items():
    print(g, len(v), "readings:", v)
