"""(cpu37a) Placement._kept_walk's test whether a kept walk moved, main's (a scan of the ~33
keys it looked at) against this tree's (none when nothing moved since its stamp: _moved),
timed on the calls a real run makes (twin anomaly 100x4 1,000 steps; min of REPS at each
call; the same answer asserted).
python bench/results/cpu37a-tools/timeit_kept_walk.py [REPS [WORKLOAD [STEPS]]]"""
import statistics, sys, time
from tidegate.sim import simulate
from tidegate.sim.model import build_model
from tidegate.sim.workloads import build
from tidegate.distributed import placement
from tidegate.distributed.tasks import _NO_MOVE

REPS = int(sys.argv[1]) if len(sys.argv) > 1 else 20
NAME = sys.argv[2] if len(sys.argv) > 2 else "anomaly"
STEPS = int(sys.argv[3]) if len(sys.argv) > 3 else 1000


def old(self, entry):  # main 36814c4's test
    looked = entry[3]
    return bool(looked and max(map(self._moves.get, looked, _NO_MOVE)) > entry[2])


def new(self, entry):  # this tree's
    if entry[2] == self._moved:
        return False
    looked = entry[3]
    return bool(looked and max(map(self._moves.get, looked, _NO_MOVE)) > entry[2])


real = placement.Placement._kept_walk
t = {"old": [], "new": []}
hits = [0]


def timed(self, ts):
    entry = self._walks.get(ts.key)
    if entry is not None and entry[0] is ts:
        pc = time.perf_counter_ns
        ans = {}
        for name, f in (("old", old), ("new", new)):
            best = None
            for _ in range(REPS):
                t0 = pc()
                a = f(self, entry)
                d = pc() - t0
                best = d if best is None or d < best else best
            t[name].append(best)
            ans[name] = a
        assert ans["old"] == ans["new"]
        hits[0] += entry[2] == self._moved
    return real(self, ts)


placement.Placement._kept_walk = timed
w = build(NAME, STEPS, 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
r = simulate(model, workers=100, threads_per_worker=4, policy="tidegate", bandwidth="1GB/s",
             record_memory=False, processes=1)
T = len(r.trace.tasks)
print(f"{NAME} {STEPS} steps: {len(t['old'])} asks with a kept walk ({len(t['old']) / T:.2f} "
      f"a task), {hits[0]} with nothing moved since; answers equal")
for name in t:
    print(f"{name}: median {statistics.median(t[name]):6.0f} ns an ask (min of {REPS}), "
          f"sum {sum(t[name]) / T / 1000:5.2f} us a task")
