"""(cpu39a) main's and this tree's trim._check_idle_saturated, tasks._returned and
tasks._structural_root, each timed at every call a real twin run makes (min of REPS each,
thread time, answers and the idle / saturated sets compared; the call is idempotent: it
files ws as its counts say). main's functions from /work/base39/src, compiled with this
tree's module globals.
PYTHONPATH=src python bench/results/cpu39a-tools/timeit_small.py WORKLOAD [STEPS] [WORKERS] [REPS]"""
import ast, statistics, sys, time
from types import FunctionType, MethodType
from tidegate.sim import simulate
from tidegate.sim.model import build_model
from tidegate.sim.workloads import build
from tidegate.distributed import hooks, tasks, trim
import tidegate.distributed.placement as placement

name = sys.argv[1]
STEPS = int(sys.argv[2]) if len(sys.argv) > 2 else 500
WORKERS = int(sys.argv[3]) if len(sys.argv) > 3 else 100
REPS = int(sys.argv[4]) if len(sys.argv) > 4 else 10
BASE = "/work/base39/src/tidegate/distributed/"


def old(path, fname, module):
    src = open(BASE + path).read()
    for node in ast.parse(src).body:
        if isinstance(node, ast.FunctionDef) and node.name == fname:
            code = compile(ast.Module([node], []), BASE + path, "exec")
            ns = dict(module.__dict__)
            exec(code, ns)
            return ns[fname]


old_cis, new_cis = old("trim.py", "_check_idle_saturated", trim), trim._check_idle_saturated
old_ret, new_ret = old("tasks.py", "_returned", tasks), tasks._returned
old_sr, new_sr = old("tasks.py", "_structural_root", tasks), tasks._structural_root
times = {k: ([], []) for k in ("_check_idle_saturated", "_returned", "_structural_root")}
tt = time.thread_time_ns


def bench(key, f_old, f_new, *args, state=None):
    out = []
    for f, into in ((f_old, times[key][0]), (f_new, times[key][1])):
        best = None
        for _ in range(REPS):
            t0 = tt()
            a = f(*args)
            t = tt() - t0
            best = t if best is None else min(best, t)
        into.append(best)
        out.append((a, state() if state else None))
    assert out[0] == out[1], key
    return out[1][0]


quick = trim.quick


def timed_quick(scheduler):
    m = quick(scheduler)
    if m is None:
        return None
    s = scheduler

    def check(ws, occ=-1.0):
        return bench("_check_idle_saturated", old_cis, new_cis, s, ws, occ,
                     state=lambda: (list(s.idle.items()), set(s.saturated)))
    return check


trim.quick = timed_quick


def w_ret(group):
    return bench("_returned", old_ret, new_ret, group)


def w_sr(ts):
    return bench("_structural_root", old_sr, new_sr, ts)


for mod in (tasks, placement, hooks):
    if hasattr(mod, "_returned"):
        mod._returned = w_ret
    if hasattr(mod, "_structural_root"):
        mod._structural_root = w_sr
w = build(name, STEPS, 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
r = simulate(model, workers=WORKERS, threads_per_worker=4, policy="tidegate",
             bandwidth="1GB/s", record_memory=False)
T = len(r.trace.tasks)
for key, (a, b) in times.items():
    if a:
        print(f"{name} {STEPS} {WORKERS}x4 {key}: {len(a)} calls ({len(a) / T:.2f} a task); "
              f"median ns a call main {statistics.median(a):.0f} new {statistics.median(b):.0f}; "
              f"us a task main {sum(a) / T / 1000:.3f} new {sum(b) / T / 1000:.3f}")
