"""vfiles20: vorticity-files in this process at one limit with the core instrumented.

Per start: the group, how many tasks ran then, held/ceiling; per gate wait (_fill's room_short
refusal, _fits_after refusal, _root_fits/_admit refusal): the task's group and the numbers it
compared; per drop/recompute: the group and bytes; the core's need/out per group at the end.
Counts by (event, group, running groups).

    PYTHONPATH=src python bench/results/vfiles20_gate.py 400e6 [STEPS] [FOLDER] [--log]
"""
import collections
import os
import sys
import time

import tidegate
from tidegate import core as C
from tidegate.workloads import build, make_inputs

args = [a for a in sys.argv[1:] if not a.startswith("--")]
LOG = "--log" in sys.argv
limit = float(args[0])
steps = int(args[1]) if len(args) > 1 else 100
folder = args[2] if len(args) > 2 else "/tmp/vfiles20-in"
if not os.path.exists(f"{folder}/b.zarr"):
    make_inputs(folder, steps)
count = collections.Counter()
cores = []
T0 = [None]


def gname(self, i):
    g = self.graph.group_names[self._group[i]]
    return {"concatenate-from-value-vorticity-store-map": "HEAVY", "open-a-read-a": "read-a",
            "open-b-read-b": "read-b"}.get(g, g)


def running(self, w):
    return sorted(gname(self, t) for t in self._needs if self.where[t] == w)


def say(self, msg):
    if LOG:
        print(f"{time.perf_counter() - T0[0]:7.3f} {msg}")


orig_init = C.Scheduler.__init__


def init(self, *a, **k):
    orig_init(self, *a, **k)
    cores.append(self)
    T0[0] = time.perf_counter()


orig_run, orig_fits_after, orig_short = C.Scheduler._run, C.Scheduler._fits_after, C.Scheduler._room_short
orig_drop, orig_recompute = C.Scheduler._drop, C.Scheduler._recompute
orig_root_fits, orig_admit = C.Scheduler._root_fits, C.Scheduler._admit


def run(self, i, sid, actions, w):
    r = running(self, w)
    count[("start", gname(self, i), tuple(r))] += 1
    say(self, f"start {gname(self, i):8s} {self.graph.keys[i]!s:.60} beside {r} held "
              f"{self.workers[w].held / 1e6:.0f} runneed {self._running_need[w] / 1e6:.0f} "
              f"need {self._task_need(i) / 1e6:.0f} ceil {self.ceiling[w] / 1e6:.0f}")
    return orig_run(self, i, sid, actions, w)


def fits_after(self, w, i):
    ok = orig_fits_after(self, w, i)
    if not ok:
        count[("fits_after-no", gname(self, i), tuple(running(self, w)))] += 1
        say(self, f"  fits_after NO {gname(self, i)} beside {running(self, w)} short "
                  f"{self._room_short(w, i) / 1e6:.0f}")
    return ok


def root_fits(self, w, i):
    ok = orig_root_fits(self, w, i)
    if not ok:
        count[("root_fits-no", gname(self, i), tuple(running(self, w)))] += 1
        say(self, f"  root_fits NO {gname(self, i)} beside {running(self, w)} wanted "
                  f"{self._wanted(w, i) / 1e6:.0f} ceil {self.ceiling[w] / 1e6:.0f}")
    return ok


def admit(self, w, i, sid, progress=True):
    ok = orig_admit(self, w, i, sid, progress)
    if not ok:
        count[("admit-no", gname(self, i), tuple(running(self, w)))] += 1
    return ok


def drop(self, i, sid, actions, arg=None):
    count[("drop", gname(self, i), tuple(running(self, self.where[i])))] += 1
    say(self, f"  DROP {gname(self, i)} {self.graph.keys[i]!s:.50} {self.nbytes[i] / 1e6:.0f} MB "
              f"held {self.workers[0].held / 1e6:.0f} keep {self.keep[0] / 1e6:.0f} ceil "
              f"{self.ceiling[0] / 1e6:.0f}")
    return orig_drop(self, i, sid, actions, arg)


def recompute(self, i, sid, actions, arg=None):
    count[("recompute", gname(self, i), ())] += 1
    return orig_recompute(self, i, sid, actions, arg)


C.Scheduler.__init__ = init
C.Scheduler._run, C.Scheduler._fits_after = run, fits_after
C.Scheduler._root_fits, C.Scheduler._admit = root_fits, admit
C.Scheduler._drop, C.Scheduler._recompute = drop, recompute

# The room_short refusal in _fill is inline: count it by gate_refusals' rise.
orig_fill = C.Scheduler._fill


def fill(self, sid, actions):
    before = self.gate_refusals
    r = orig_fill(self, sid, actions)
    if self.gate_refusals > before:
        w = 0
        head = (self._ready_roots[0][1] if self._ready_roots else None)
        nxt = self._ready[0][1] if self._ready else head
        count[("gate", gname(self, nxt) if nxt is not None else "?", tuple(running(self, w)))] += 1
        say(self, f"  GATE waits {gname(self, nxt) if nxt is not None else '?'} beside "
                  f"{running(self, w)} short {self.gate_short / 1e6:.0f} held "
                  f"{self.workers[w].held / 1e6:.0f} runneed {self._running_need[w] / 1e6:.0f} "
                  f"need {self._task_need(nxt) / 1e6 if nxt is not None else 0:.0f} ceil "
                  f"{self.ceiling[w] / 1e6:.0f} fit {self.fit[w]}")
    return r


C.Scheduler._fill = fill

y = build(os.environ.get("WL", "vorticity-files"), {n: f"{folder}/{n}.zarr" for n in "ab"}, "/tmp/vfiles20-gate-out")
stats = tidegate.RunStats()
t = time.perf_counter()
y.compute(scheduler=tidegate.get, num_workers=2, memory_limit=limit, stats=stats)
wall = time.perf_counter() - t
c = cores[-1]
print(f"wall {wall:.2f} peak {stats.peak_memory / 1e6:.0f} MB, dropped {stats.bytes_dropped / 1e6:.0f}"
      f" MB, recomputed {stats.tasks_recomputed}, written {stats.spill_file_bytes / 1e6:.0f} MB, "
      f"gate {stats.gate_refusals} idle {stats.gate_idle_time:.2f}, extra_waits {c.extra_waits}, "
      f"fit {c.fit}, ceiling {c.ceiling[0] / 1e6:.0f}, keep {c.keep[0] / 1e6:.0f}, after "
      f"{c.after / 1e6:.0f}")
for g, name in enumerate(c.graph.group_names):
    print(f"  group {name:45s} need {c.need[g] / 1e6:7.1f} out {c.out[g] / 1e6:7.1f} sized "
          f"{c.sized[g] / 1e6:8.1f} rerun {c.rerun[g]}")
for k, v in sorted(count.items(), key=lambda kv: (kv[0][0], -kv[1])):
    print(" ", v, k)
