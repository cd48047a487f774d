# bench/results record (twinstore, session 9, issue 8/9): output in store_form_diagnosis.txt
"""Why the plugin holds more than queue on vorticity in the twin (20x4, 200 MB/s, store form;
today's form alike): diagnosis by the plugin's own books, and one experiment that changes
no file (a patched method in this process only).

    PYTHONPATH=src python bench/results/store_form_diagnosis.py [STEPS]

1. Every root started on the worker that peaks, with the books' counts at that moment
   (roots processing, roots untouched, owed, consumers consuming, tasks processing): roots
   start while nothing processes there (the progress rule, Books.may_progress) although
   roots_untouched is far above the cap, because the readers of the three shared grid
   inputs are held by the broadcast gate until a copy reaches this worker.
2. When the grid copies reached that worker.
3. The experiment: the progress rule refused on a worker that a held reader waits on.
"""

import sys

from tidegate import books as B
from tidegate.sim import cluster as C
from tidegate.sim import simulate
from tidegate.sim.workloads import build

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 600
state = {"cluster": None, "held_not_idle": False, "watch": None}
log = []

_init = C.SimCluster.__init__


def init(self, *a, **k):
    _init(self, *a, **k)
    state["cluster"] = self


C.SimCluster.__init__ = init

_on_run = B.Books.on_run


def on_run(self, task, w, root, group, known, stimulus_id=None):
    if w == state["watch"] and root:
        b = self.workers[w]
        log.append((round(state["cluster"].clock.now, 2), task, b.roots_processing,
                    b.roots_untouched, b.owed, b.consuming, b.processing, b.cap))
    return _on_run(self, task, w, root, group, known, stimulus_id)


B.Books.on_run = on_run

_may_progress = B.Books.may_progress


def may_progress(self, book):
    if not _may_progress(self, book):
        return False
    plugin = getattr(state["cluster"], "plugin", None)
    if not state["held_not_idle"] or plugin is None:
        return True
    held = {addr for addr, _ in plugin._broadcast.held.values()}
    return not any(b is book and a in held for a, b in self.workers.items())


B.Books.may_progress = may_progress

m = build("vorticity", steps, 190e6, store=True).model()
opts = dict(workers=20, threads_per_worker=4, bandwidth="200MB/s", record_memory=False)
q = simulate(m, policy="queue", **opts)
t = simulate(m, policy="tidegate", **opts)
worst = max(range(len(t.peak_memory_per_worker)), key=t.peak_memory_per_worker.__getitem__)
addr = sorted(state["cluster"].workers)[worst]
state["watch"] = addr
t = simulate(m, policy="tidegate", **opts)  # again, watching the worker that peaks
print(f"vorticity store form, {steps} steps, 20x4, 200 MB/s; peak worker {addr}")
print("roots started there: (time, key, roots processing, untouched, owed, consuming, "
      "processing, cap)")
for e in log[:40]:
    print("  ", e)
for tr in t.trace.transfers:
    if str(tr.key).startswith("grid-") and tr.dest == addr:
        print(f"   copy of {tr.key} to it: {tr.start:.2f} -> {tr.stop:.2f} s")
state["watch"] = None
state["held_not_idle"] = True
x = simulate(m, policy="tidegate", **opts)
for label, r in (("queue", q), ("tidegate", t), ("tidegate, held reader => not idle", x)):
    print(f"{label:34s} peak {max(r.peak_memory_per_worker) / 1e9:5.2f} GB  makespan "
          f"{r.makespan:6.1f} s  moved {r.bytes_transferred / 1e9:6.1f} GB")
