"""vort20: where the seconds with no task running go, vorticity below its working set
(in this process, 2 threads): idle gaps from the trace (between the last task ending and
the next starting), and the scheduling thread's time in malloc_trim (restart's and the
sampler's), Governor.budget and the core (RunStats.core_time).

    PYTHONPATH=src python bench/results/vort20_gaps.py LIMIT STEPS FOLDER"""
import collections, os, sys, time, threading
import numpy as np
import tidegate
from tidegate import measure as M
from tidegate.trace import collecting
from tidegate.workloads import build, make_inputs

limit, steps, folder = float(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
if not os.path.exists(f"{folder}/a.zarr"):
    make_inputs(folder, steps)
spent = collections.defaultdict(float)
count = collections.Counter()
trim0, budget0, restart0 = M.trim, M.Governor.budget, M.Governor.restart


def timed(name, f):
    def g(*a, **k):
        t = time.perf_counter()
        c = time.thread_time()
        try:
            return f(*a, **k)
        finally:
            where = "main" if threading.current_thread() is threading.main_thread() else "other"
            spent[f"{name} {where} wall"] += time.perf_counter() - t
            spent[f"{name} {where} cpu"] += time.thread_time() - c
            count[f"{name} {where}"] += 1
    return g


M.trim = timed("trim", trim0)
M.Governor.budget = timed("budget", budget0)
M.Governor.restart = timed("restart", restart0)
y = build("vorticity", {n: f"{folder}/{n}.zarr" for n in "ab"}, folder)
stats = tidegate.RunStats()
c0 = time.thread_time()
with collecting() as traces:
    t0 = time.perf_counter()
    y.compute(scheduler=tidegate.get, num_workers=2, memory_limit=limit, stats=stats)
    wall = time.perf_counter() - t0
main_cpu = time.thread_time() - c0
tasks = sorted(traces[0].tasks, key=lambda t: t.start)
ev = sorted([(t.start, 1, t) for t in tasks] + [(t.stop, -1, t) for t in tasks], key=lambda e: (e[0], -e[1]))
n, last, gaps, after = 0, ev[0][0], [], collections.defaultdict(list)
prev = None
for tm, d, t in ev:
    if n == 0 and prev is not None:
        gaps.append(tm - last)
        after[(prev.group, t.group)].append(tm - last)
    n += d
    if n == 0:
        prev = t
    last = tm
g = np.array(gaps)
print(f"limit {limit/1e6:.0f} MB wall {wall:.2f} s, tasks {len(tasks)}, task-s {sum(t.stop-t.start for t in tasks):.2f},"
      f" idle gaps {len(g)} sum {g.sum():.2f} s median {np.median(g)*1e3:.2f} ms p90 {np.percentile(g,90)*1e3:.2f} ms max {g.max()*1e3:.1f} ms")
print(f"core_time {stats.core_time:.2f} s, main thread cpu {main_cpu:.2f} s, peak {stats.peak_memory/1e6:.0f} MB,"
      f" written {stats.spill_file_bytes/1e6:.0f} MB, gate refusals {stats.gate_refusals}, load {os.getloadavg()[0]:.1f}")
for k in sorted(spent):
    print(f"  {k}: {spent[k]:.3f} s ({count[k.rsplit(' ',1)[0]]} calls)")
for k, v in sorted(after.items(), key=lambda kv: -sum(kv[1]))[:8]:
    print(f"  gap after {k[0]} before {k[1]}: {len(v)} x, {sum(v):.3f} s, median {np.median(v)*1e3:.2f} ms")
if len(sys.argv) > 4:  # print a window of the run: task, thread, start, stop (ms)
    lo = float(sys.argv[4])
    for t in tasks:
        if lo <= t.start <= lo + 0.5 and t.stop - t.start > 0.002:
            print(f"  {t.start*1e3:9.1f} {t.stop*1e3:9.1f} th{t.thread} {t.group:36} {t.key[:60]} {t.nbytes/1e6:.0f} MB")
# How much of each heavy group's time ran beside another task (any, and of which group).
beside = collections.defaultdict(float)
alone = collections.defaultdict(float)
for t in tasks:
    if t.stop - t.start < 0.005:
        continue
    ov = collections.defaultdict(float)
    for u in tasks:
        if u is not t and u.start < t.stop and u.stop > t.start:
            ov[u.group] += min(u.stop, t.stop) - max(u.start, t.start)
    for gname, s in ov.items():
        beside[(t.group, gname)] += s
    alone[t.group] += t.stop - t.start - min(t.stop - t.start, sum(ov.values()))
print("  heavy task-seconds alone:", {k: round(v, 2) for k, v in alone.items()})
print("  beside:", {f"{k[0]}|{k[1]}": round(v, 2) for k, v in sorted(beside.items(), key=lambda kv: -kv[1])[:8]})
