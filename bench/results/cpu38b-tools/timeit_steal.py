"""(cpu38b, session 38) Plugin.transition's stealing step for a task leaving processing,
main's (a call of server._steal_transition's closure, which returns at once while
stealing's books are empty) against this tree's (the closure's first test inline, the call
only where it would do something), timed at every such transition a twin run makes.

    PYTHONPATH=src python bench/results/cpu38b-tools/timeit_steal.py [WORKLOAD] [WORKERS] [REPS]

At each Plugin.transition(key, "processing", finish != "processing") of the run, with the
fold active, both fragments below run REPS times each (timeit, number=20; min taken) where
stealing's books are empty (the call then has no side effect); where they are not, both
make the same call and only the added test differs (counted, not timed). Prints ns per
call (median over the calls) and us per task, both ways."""
import statistics
import sys
import timeit

from tidegate.distributed.hooks import Plugin
from tidegate.sim import simulate
from tidegate.sim.model import build_model
from tidegate.sim.workloads import build

name = sys.argv[1] if len(sys.argv) > 1 else "stack-sum"
nworkers = int(sys.argv[2]) if len(sys.argv) > 2 else 100
reps = int(sys.argv[3]) if len(sys.argv) > 3 else 5
STEPS = {"stack-sum": 1000, "slice-add": 1000, "anomaly": 500, "rechunk-add": 500}


def old_part(self, key, start, finish):  # main's lines (hooks.py, Plugin.transition)
    steal = self._steal_fold
    if steal is not None:
        try:
            steal(key, start, finish)
        except Exception:
            pass


def new_part(self, key, start, finish):  # this tree's
    steal = self._steal_fold
    if steal is not None:
        ext = self._steal_ext
        if finish == "processing" or ext.key_stealable or ext.in_flight \
                or ext.unknown_durations:  # fmt: skip
            try:
                steal(key, start, finish)
            except Exception:
                pass


olds, news, busy, calls = [], [], [0], [0]
orig = Plugin.transition


def transition(self, key, start, finish, *args, **kwargs):
    if start == "processing" and finish != "processing" and self._steal_fold is not None:
        calls[0] += 1
        ext = self._steal_ext
        if ext.key_stealable or ext.in_flight or ext.unknown_durations:
            busy[0] += 1
        else:
            t_old = min(timeit.repeat(lambda: old_part(self, key, start, finish),
                                      number=20, repeat=reps)) / 20
            t_new = min(timeit.repeat(lambda: new_part(self, key, start, finish),
                                      number=20, repeat=reps)) / 20
            olds.append(t_old)
            news.append(t_new)
    return orig(self, key, start, finish, *args, **kwargs)


Plugin.transition = transition
w = build(name, STEPS[name], 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
r = simulate(model, workers=nworkers, threads_per_worker=4, policy="tidegate",
             bandwidth="1GB/s", record_memory=False)
Plugin.transition = orig
tasks = len(r.trace.tasks)
print(f"{name} {nworkers}x4: {tasks} tasks, {calls[0]} leaving processing with the fold, "
      f"{busy[0]} of them with stealing's books not empty (not timed)")
if olds:
    print(f"  main: median {statistics.median(olds) * 1e9:.0f} ns a call, "
          f"{sum(olds) / tasks * 1e6:.3f} us a task (timed calls)")
    print(f"  new:  median {statistics.median(news) * 1e9:.0f} ns a call, "
          f"{sum(news) / tasks * 1e6:.3f} us a task (timed calls)")
