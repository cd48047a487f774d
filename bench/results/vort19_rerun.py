"""vort19: did run-again-or-spill (core.rerun, set by local._RerunCost) change during a run? Logs
each flip with the groups read seconds per GB against the disks round trip, and when roots
were dropped.

    PYTHONPATH=src python bench/results/vort19_rerun.py 140e6 100 /tmp/vort19-in100
"""
import sys, os, time
import tidegate
from tidegate import local as L
from tidegate import core as C
from tidegate.workloads import make_inputs, build
limit, steps, folder = float(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
if not os.path.exists(f"{folder}/a.zarr"):
    make_inputs(folder, steps)
flips = []
orig = L._RerunCost.decide
def decide(self):
    before = list(self.core.rerun)
    orig(self)
    if self.core.rerun != before:
        d = self.disk
        moved = d.bytes_written + d.bytes_read
        flips.append((round(time.perf_counter() - t0, 2), [self.core.graph.group_names[g] for g, v in enumerate(self.core.rerun) if v],
                      {self.core.graph.group_names[g]: round(self.seconds[g] / self.bytes[g] * 1e9, 2) for g in self.seconds},
                      round(2 * d.seconds / moved * 1e9, 2) if moved else None))
L._RerunCost.decide = decide
drops = []
od = C.Scheduler._drop
def drop(self, i, sid, actions, arg=None):
    if not self._ndeps[i]:
        drops.append(round(time.perf_counter() - t0, 1))
    return od(self, i, sid, actions, arg)
C.Scheduler._drop = drop
y = build("vorticity", {n: f"{folder}/{n}.zarr" for n in "ab"}, folder)
stats = tidegate.RunStats()
t0 = time.perf_counter()
y.compute(scheduler="tidegate", num_workers=2, memory_limit=limit, stats=stats)
print("wall", round(time.perf_counter() - t0, 1), "written", stats.spill_file_bytes / 1e6, "dropped", stats.bytes_dropped / 1e6)
for f in flips: print("flip", f)
print("root drops at", drops)
