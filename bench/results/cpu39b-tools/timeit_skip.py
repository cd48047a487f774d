"""(cpu39b, session 39) Held.skip's search for the first covered reader: main's (one
SortedList.bisect_left per covered worker) against this tree's (the least entry, then one
bisect), timed at every Held.skip call of one twin run on the state each call sees (both
fragments are pure: they only read), and checked equal.

    PYTHONHASHSEED=0 PYTHONPATH=src python bench/results/cpu39b-tools/timeit_skip.py \
        [WORKLOAD] [SCALE] [WORKERS] [REPEAT]"""
import statistics
import sys
import timeit
from bisect import bisect_right

sys.path.insert(0, "bench")
import plugin_ops  # noqa: E402
from tidegate.distributed import held  # noqa: E402
from tidegate.sim import simulate  # noqa: E402
from tidegate.sim.model import build_model  # noqa: E402
from tidegate.sim.workloads import build  # noqa: E402

name = sys.argv[1] if len(sys.argv) > 1 else "anomaly"
scale = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
nworkers = int(sys.argv[3]) if len(sys.argv) > 3 else 100
repeat = int(sys.argv[4]) if len(sys.argv) > 4 else 5


def old(covered, on, mark, ahead, lst, end):
    for a in covered:
        es = on.get(a)
        if not es:
            continue
        i = 0 if mark is None else bisect_right(es, mark)
        while i < len(es) and es[i][2].key in ahead:
            i += 1
        if i < len(es):
            end = min(end, lst.bisect_left(es[i]))
    return end


def new(covered, on, mark, ahead, lst, end):
    first = None
    for a in covered:
        es = on.get(a)
        if not es:
            continue
        i = 0 if mark is None else bisect_right(es, mark)
        if ahead:
            while i < len(es) and es[i][2].key in ahead:
                i += 1
        if i < len(es):
            e = es[i]
            if first is None or e < first:
                first = e
    if first is not None:
        end = min(end, lst.bisect_left(first))
    return end


t_old, t_new, sizes = [], [], []
orig = held.Held.skip


def skip(self, covered, bound, limit, generation):
    lst = self._list
    end = len(lst) if bound is None else lst.bisect_left((bound,))
    args = (covered, self._on, self._mark, self._ahead, lst, end)
    assert old(*args) == new(*args)
    sizes.append(len(covered))
    t_old.append(min(timeit.repeat(lambda: old(*args), number=20, repeat=repeat)) / 20)
    t_new.append(min(timeit.repeat(lambda: new(*args), number=20, repeat=repeat)) / 20)
    return orig(self, covered, bound, limit, generation)


held.Held.skip = skip
w = build(name, int(plugin_ops.STEPS[name] * scale), 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
r = simulate(model, workers=nworkers, threads_per_worker=4, policy="tidegate",
             bandwidth="1GB/s", record_memory=False)
T = len(r.trace.tasks)
print(f"{name} scale {scale} {nworkers}x4: {T} tasks, {len(sizes)} Held.skip calls, covered "
      f"median {statistics.median(sizes)} workers (max {max(sizes)})")
print(f"  main's  median {statistics.median(t_old) * 1e6:.2f} us a call, "
      f"{sum(t_old) / T * 1e6:.3f} us a task")
print(f"  this    median {statistics.median(t_new) * 1e6:.2f} us a call, "
      f"{sum(t_new) / T * 1e6:.3f} us a task")
