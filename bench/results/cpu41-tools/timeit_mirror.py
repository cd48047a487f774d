"""(cpu41) The mirror path timed at every real call of one twin run: at each call the
plugin makes (Placement._mirrored) of policy._mirrored_inputs_fast / _mirror_holds_fast,
the old function (mirrored_inputs / mirror_holds, == compares) and the new (the plugin's
arguments: unique) each run REPS times (on a fresh copy of the kept chains, copied
outside the timer), thread time, min per call; answers (and chains left) compared.
PYTHONHASHSEED=0 PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=src python
    bench/results/cpu41-tools/timeit_mirror.py WORKLOAD STEPS WORKERS [REPS=5]"""
import sys, time
from tidegate import policy
from tidegate.distributed import placement
from tidegate.sim import simulate
from tidegate.sim.model import build_model
from tidegate.sim.workloads import build

name, steps, workers = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
reps = int(sys.argv[4]) if len(sys.argv) > 4 else 5
clock = time.thread_time_ns
sums = {}


def timed(old_fn, new_fn, label):
    sums[label] = [0, 0, 0]

    def wrapper(*args, **kwargs):
        chains = kwargs.get("chains")
        res = {}
        for fast in (False, True):
            kw = dict(kwargs)
            if not fast:
                kw.pop("unique", None)
            f = new_fn if fast else old_fn
            b = None
            for _ in range(reps):
                c = dict(chains) if chains is not None else None
                if c is not None:
                    kw["chains"] = c
                t0 = clock()
                out = f(*args, **kw)
                t = clock() - t0
                b = t if b is None or t < b else b
            res[fast] = (b, out, c)
        assert res[False][1] == res[True][1]
        assert res[False][2] == res[True][2]
        s = sums[label]
        s[0] += 1
        s[1] += res[False][0]
        s[2] += res[True][0]
        return new_fn(*args, **kwargs)
    return wrapper


placement._mirrored_inputs_fast = timed(policy.mirrored_inputs, policy._mirrored_inputs_fast,
                                        "mirrored_inputs")
placement._mirror_holds_fast = timed(policy.mirror_holds, policy._mirror_holds_fast,
                                     "mirror_holds")
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
