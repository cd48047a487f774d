# bench/results record (twinstore, session 9): output in held_not_idle_sweep-*.txt
"""The experiment of store_form_diagnosis.py over every twin workload, both forms: the
progress rule (Books.may_progress) refused on a worker that a reader held by the broadcast
gate waits on. Patched in this process only; no file changes.

    PYTHONPATH=src python bench/results/held_not_idle_sweep.py WORKERS STEPS
"""

import sys

from tidegate import books as B
from tidegate.sim import cluster as C
from tidegate.sim import simulate
from tidegate.sim.model import build_model
from tidegate.sim.workloads import WORKLOADS, build

state = {"cluster": None, "on": False}
_init = C.SimCluster.__init__


def init(self, *a, **k):
    _init(self, *a, **k)
    state["cluster"] = self


C.SimCluster.__init__ = init
_may_progress = B.Books.may_progress


def may_progress(self, book):
    if not _may_progress(self, book):
        return False
    plugin = getattr(state["cluster"], "plugin", None)
    if not state["on"] or plugin is None:
        return True
    held = {addr for addr, _ in plugin._broadcast.held.values()}
    return not any(b is book and a in held for a, b in self.workers.items())


B.Books.may_progress = may_progress
workers, steps = int(sys.argv[1]), int(sys.argv[2])
opts = dict(workers=workers, threads_per_worker=4, bandwidth="200MB/s", record_memory=False)
print(f"{workers}x4, {steps} steps of 190 MB, 200 MB/s; peak GB / makespan s / moved GB")
for name in sorted(WORKLOADS):
    for store in (False, True):
        if store:
            m = build(name, steps, 190e6, store=True).model()
        else:
            w = build(name, steps, 190e6, store=False)
            m = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
        row = []
        for label, policy, on in (("queue", "queue", False), ("tidegate", "tidegate", False),
                                  ("experiment", "tidegate", True)):
            state["on"] = on
            r = simulate(m, policy=policy, **opts)
            row.append(f"{label} {max(r.peak_memory_per_worker) / 1e9:.2f} / {r.makespan:.1f} / "
                       f"{r.bytes_transferred / 1e9:.1f}")
        print(f"{name:14s} {'store' if store else 'today':5s}  " + "  |  ".join(row), flush=True)
