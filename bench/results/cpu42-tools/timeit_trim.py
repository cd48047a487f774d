"""(cpu42) base's trim._check_idle_saturated against this branch's, at real calls of one twin
run: every Nth call whose worker has at least as many tasks processing as threads (the
branch that sums), each timed on that scheduler state (idempotent: a second call changes
nothing), alternated, thread time, median of REPS repeats x NUMBER calls; medians over the
sampled calls. Also checks both leave idle/saturated alike.

PYTHONHASHSEED=0 PYTHONPATH=src python timeit_trim.py W SCALE WORKERS BASE_SRC [N] [REPS]"""
import importlib.util
import statistics
import sys
import time

from tidegate.distributed import trim
from tidegate.sim import simulate
from tidegate.sim.model import build_model
from tidegate.sim.workloads import build

W, scale, workers, base_src = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
N = int(sys.argv[5]) if len(sys.argv) > 5 else 20
REPS = int(sys.argv[6]) if len(sys.argv) > 6 else 9
NUMBER = 200
STEPS = {"stack-sum": 2000, "slice-add": 2000, "anomaly": 1000, "rechunk-add": 1000}
spec = importlib.util.spec_from_file_location(
    "base_trim", f"{base_src}/tidegate/distributed/trim.py",
    submodule_search_locations=None)
base = importlib.util.module_from_spec(spec)
base.__package__ = "tidegate.distributed"
spec.loader.exec_module(base)
old, new = base._check_idle_saturated, trim._check_idle_saturated
clock = time.thread_time_ns
seen = [0]
samples = {"old": [], "new": []}


def timed(fn, s, ws):
    t = clock()
    for _ in range(NUMBER):
        fn(s, ws)
    return (clock() - t) / NUMBER


def check(self, ws, occ=-1.0):
    if occ < 0 and len(ws.processing) >= ws.nthreads and ws.status == trim._RUNNING:
        seen[0] += 1
        if seen[0] % N == 0:
            old(self, ws)
            a = (self.idle.get(ws.address), set(self.saturated))
            new(self, ws)
            assert (self.idle.get(ws.address), set(self.saturated)) == a
            o, n = [], []
            for _ in range(REPS):
                o.append(timed(old, self, ws))
                n.append(timed(new, self, ws))
            samples["old"].append(statistics.median(o))
            samples["new"].append(statistics.median(n))
    return new(self, ws, occ)


orig_quick = trim.quick


def quick(scheduler):
    m = orig_quick(scheduler)
    if m is None:
        return None
    import types
    return types.MethodType(check, scheduler)


trim.quick = quick
w = build(W, int(STEPS[W] * scale), 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
simulate(model, workers=workers, threads_per_worker=4, policy="tidegate", bandwidth="1GB/s",
         record_memory=False)
o, n = statistics.median(samples["old"]), statistics.median(samples["new"])
print(f"{W} {scale} x{workers}: {len(samples['old'])} calls sampled of {seen[0]} summing; "
      f"old {o:.0f} ns, new {n:.0f} ns a call ({n / o:.3f}x)")
