"""(cpu40b) The plans' walks timed at every real call of one twin run: at each call the
plugin makes of policy.meeting_plan / policy.further_plan (Placement._plan, _further_plan),
the old walk (session 39's policy.py, BASE_POLICY, loaded beside: group a Python function as
tasks._group was, == compares)
and the new (PLAN_FAST = True, the plugin's arguments: unique, the attrgetter) each run
REPS times on a fresh copy of the kept chains (copied outside the timer), thread time, min
per call; answers compared (plans and the chains left). Sums over the run, ns a call.
PYTHONHASHSEED=0 PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=src python
    bench/results/cpu40b-tools/timeit_plans.py WORKLOAD STEPS WORKERS [REPS=5]"""
import importlib.util, os, sys, time
from tidegate import policy
from tidegate.distributed import placement
from tidegate.sim import simulate
from tidegate.sim.model import build_model
from tidegate.sim.workloads import build

name, steps, workers = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
reps = int(sys.argv[4]) if len(sys.argv) > 4 else 5
clock = time.thread_time_ns
sums = {"meeting_plan": [0, 0, 0], "further_plan": [0, 0, 0]}  # calls, old ns, new ns


BASE = os.environ.get("BASE_POLICY", "/work/base40/src/tidegate/policy.py")
_spec = importlib.util.spec_from_file_location("base_policy", BASE)
base = sys.modules["base_policy"] = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(base)  # (session 39's policy.py: the old walks as they were)


def _group_py(ts):  # (tasks._group before: a Python function)
    return ts.group


def timed(fn, label):
    old_fn = getattr(base, fn.__name__)

    def wrapper(*args, **kwargs):
        chains = kwargs.get("chains")
        best = {}
        for fast in (False, True):
            kw = dict(kwargs)
            if not fast:
                kw.pop("unique", None)
                if kw.get("group") is not None:
                    kw["group"] = _group_py
            policy.PLAN_FAST = fast
            f = fn if fast else old_fn
            b = None
            for _ in range(reps):
                c = dict(chains) if chains is not None else None
                if c is not None:
                    kw["chains"] = c
                t0 = clock()
                out = f(*args, **kw)
                t = clock() - t0
                b = t if b is None or t < b else b
            best[fast] = (b, out, c)
        assert best[False][1] == best[True][1]
        assert best[False][2] == best[True][2]
        policy.PLAN_FAST = True
        s = sums[label]
        s[0] += 1
        s[1] += best[False][0]
        s[2] += best[True][0]
        return fn(*args, **kwargs)
    return wrapper


placement.meeting_plan = timed(policy.meeting_plan, "meeting_plan")
placement.further_plan = timed(policy.further_plan, "further_plan")
w = build(name, steps, 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
simulate(model, workers=workers, threads_per_worker=4, policy="tidegate", bandwidth="1GB/s",
         record_memory=False)
T = len(model.dsk)
tot_old = tot_new = 0
for label, (n, old, new) in sums.items():
    tot_old += old
    tot_new += new
    if n:
        print(f"{name} {steps} x{workers} {label}: {n} calls, old {old / n:.0f} ns, new "
              f"{new / n:.0f} ns a call ({new / old:.3f}x)")
print(f"{name} {steps} x{workers} both: old {tot_old / T:.0f} ns a task, new "
      f"{tot_new / T:.0f} ns a task ({T} tasks)")
