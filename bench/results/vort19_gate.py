"""vort19: why does vorticity's chunk read not start beside a running task below the working
set? Runs vorticity in this process at one limit (inputs written once under FOLDER) with
the core's gate instrumented: per read considered on the thread past those fitted to memory,
the running group, whether it fitted (core._fits_after) and the numbers it compared; then
how many tasks of each group started beside another (1) or alone (0).

    PYTHONPATH=src python bench/results/vort19_gate.py 170e6 40 /tmp/vort19-in40
"""
import collections
import os
import sys

import tidegate
from tidegate import core as C
from tidegate.workloads import build, make_inputs

limit, steps, folder = float(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
if not os.path.exists(f"{folder}/a.zarr"):
    make_inputs(folder, steps)
beside = collections.Counter()
fits_after, run = C.Scheduler._fits_after, C.Scheduler._run


def logged_fits_after(self, w, i):
    ok = fits_after(self, w, i)
    name = self.graph.group_names
    if name[self._group[i]] == "from-zarr":
        out, group = self.out, self._group
        after = self.workers[w].held + out[group[i]] + self.after
        after += sum(out[group[t]] for t in self._needs)
        print(f"read {'fits ' if ok else 'waits'} beside {[name[group[t]] for t in self._needs]}"
              f" short {self._room_short(w, i) / 1e6:.0f} MB, own need "
              f"{self._task_need(i) / 1e6:.0f}, running need {self._running_need[w] / 1e6:.0f}"
              f", held {self.workers[w].held / 1e6:.0f}, held+outs+after {after / 1e6:.0f}, "
              f"ceiling {self.ceiling[w] / 1e6:.0f}")
    return ok


def counted_run(self, i, sid, actions, w):
    beside[(self.graph.group_names[self._group[i]], self.workers[w].processing)] += 1
    return run(self, i, sid, actions, w)


C.Scheduler._fits_after, C.Scheduler._run = logged_fits_after, counted_run
y = build("vorticity", {n: f"{folder}/{n}.zarr" for n in "ab"}, folder)
stats = tidegate.RunStats()
y.compute(scheduler="tidegate", num_workers=2, memory_limit=limit, stats=stats)
for (g, n), k in sorted(beside.items()):
    print(f"started {'beside another' if n else 'alone'}: {g} {k}")
print(f"written {stats.spill_file_bytes / 1e6:.0f} MB, peak {stats.peak_memory / 1e6:.0f} MB")
