"""Why TAIL_THREAD_FREE costs on a plain sum of N loads: per run, the last start, the tail's
starts (the last T roots, T the cluster's threads) and the thread gaps before them (the time
a thread stood free before its next load started), queue vs tidegate rule off / on.

  PYTHONPATH=src python tail_gaps.py --n 1000 --dur 0.5 --shape 20x4 --latency 0.001
"""
import argparse
import statistics

from tidegate import policy
from tidegate.sim import simulate

ap = argparse.ArgumentParser()
ap.add_argument("--n", type=int, default=1000)
ap.add_argument("--dur", type=float, default=0.5)
ap.add_argument("--shape", default="20x4")
ap.add_argument("--latency", type=float, default=0.001)
a = ap.parse_args()
w, t = map(int, a.shape.split("x"))
g = {("load", i): (lambda: None,) for i in range(a.n)}
g["total"] = (sum, [("load", i) for i in range(a.n)])
for name, v in (("queue", None), ("off", 0), ("on", 1)):
    if v is not None:
        policy.TAIL_THREAD_FREE = v
    r, = simulate(g, keys=["total"], workers=w, threads_per_worker=t, latency=a.latency,
                  policy=["queue" if v is None else "tidegate"], processes=1,
                  durations=lambda k: 0.01 if k == "total" else a.dur,
                  sizes=lambda k: 1e6, record_memory=False)
    loads = sorted((x for x in r.trace.tasks if x.group == "load"), key=lambda x: x.start)
    by_thread: dict = {}
    gaps = []
    for x in loads:
        k = (x.worker, x.thread)
        if k in by_thread:
            gaps.append((x.start, x.start - by_thread[k]))
        by_thread[k] = x.stop
    tail = [gp for s, gp in gaps if s >= loads[-w * t].start]
    allg = [gp for s, gp in gaps]
    per_worker = {}
    for x in loads:
        per_worker[x.worker] = per_worker.get(x.worker, 0) + 1
    print(f"{name}: makespan {r.makespan:.3f} last start {loads[-1].start:.3f} gaps all "
          f"mean {statistics.mean(allg)*1e3:.2f} ms max {max(allg)*1e3:.1f}; tail "
          f"{len(tail)} mean {statistics.mean(tail)*1e3:.2f} ms max {max(tail)*1e3:.1f}; "
          f"loads a worker {min(per_worker.values())}-{max(per_worker.values())}")
policy.TAIL_THREAD_FREE = 1
