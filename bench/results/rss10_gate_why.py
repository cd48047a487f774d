"""Why the fewer-at-once gate held a task back (issue 10, session 10, rss10): run one
workload under tidegate in this process and print every refusal beside a running task,
with each task's need (s: measured at its size; G: a guess, unmeasured or larger inputs),
held bytes, the ceiling, how short it fell and a fresh RSS reading. A diagnostic: it wraps
core.Scheduler._room_short and local.Governor.start.

    PYTHONPATH=src python bench/results/rss10_gate_why.py rechunk-add 300e6 [--threads-max]
(--threads-max: local._threads_that_fit keeps every thread, so the gate decides alone.)
"""

import math
import sys
import tempfile
import time

import dask

import tidegate
from tidegate import core, local
from tidegate.measure import RSSSampler
from tidegate.workloads import build, make_inputs

workload, limit = sys.argv[1], float(sys.argv[2])
if "--threads-max" in sys.argv:
    local._threads_that_fit = lambda gov, threads, most, *a, **k: most
governor = []
refusals = []
room_short = core.Scheduler._room_short


def logged_room_short(self, w, i):
    short = room_short(self, w, i)
    if self.workers[w].processing and short > 0:
        names = self.graph.group_names

        def need(t):
            g = self._group[t]
            sized = self.sized[g]
            mark = "" if sized == math.inf else ("s" if sized > 0 else "G")
            return f"{names[g][:24]}:{self._task_need(t) / 1e6:.0f}{mark}"

        gov = governor[0]
        refusals.append(
            f"{need(i)} beside {[need(t) for t in self._needs]} held "
            f"{self.workers[w].held / 1e6:.0f} ceiling {self.ceiling[w] / 1e6:.0f} short "
            f"{short / 1e6:.0f} fresh RSS {gov.fresh() / 1e6:.0f} usable {gov.usable / 1e6:.0f}"
        )
    return short


class Governor(local.Governor):
    def start(self):
        governor.append(self)
        return super().start()


core.Scheduler._room_short = logged_room_short
local.Governor = Governor
folder = tempfile.mkdtemp()
work = build(workload, make_inputs(folder, 100), folder)
stats = tidegate.RunStats()
with RSSSampler(0.01) as rss:
    t0 = time.perf_counter()
    dask.compute(work, scheduler=tidegate.get, num_workers=2, memory_limit=limit, stats=stats)
    wall = time.perf_counter() - t0
print(f"{workload} {limit / 1e6:.0f} MB: {wall:.1f} s, peak {rss.peak_above_baseline / 1e6:.0f} MB, "
      f"{stats.gate_refusals} gate waits, threads >= {stats.fewest_threads}, "
      f"{stats.spill_file_bytes / 1e6:.0f} MB written")
print("\n".join(refusals))
