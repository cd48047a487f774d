"""timeit of hooks.VIEW_MEMO's paths at the sizes the twin's anomaly gives them.
    PYTHONHASHSEED=0 PYTHONPATH=src python bench/results/cpu40a-tools/timeit_view.py
        [steps workers]
(A) During twin anomaly (default 1,000 steps, 100 x 4: scale 1), at every 40th ask of the
combine view (Books.awaits) made while that worker's view is kept, time
  kept:  Books.awaits(w) as run (VIEW_MEMO 1: _combines_of answers from _views),
  found: Books.awaits(w) with VIEW_MEMO 0 (_combines_of -> _combines_found, the view found
         as session 39 found it, plus one method call),
  body:  Plugin._combines_found(addr, combs) alone (session 39's _combines_of body),
9 alternated repeats of 2,000 calls each, medians (us a call, by thread time); then the
median over asks.
(B) The stamp Plugin.transition pays on every transition (the new line, alone), on an
empty _viewed (every other workload) and on one the size the anomaly's reaches, key absent;
and the replica hooks' extra test, each against the same function without it."""
import statistics
import sys
import time
import timeit

T = time.thread_time  # (this thread's CPU time: the machine is shared)

from tidegate.books import Books
from tidegate.distributed import hooks
from tidegate.sim import simulate
from tidegate.sim.model import build_model
from tidegate.sim.workloads import build

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
workers = int(sys.argv[2]) if len(sys.argv) > 2 else 100
REPEATS, NUMBER = 9, 2000
asks = [0]
samples = {"kept": [], "found": [], "body": []}
viewed_sizes = []
awaits = Books.awaits
plugins = []
inst = hooks.Plugin.install


def rec(self, s, apply=None):
    plugins.append(self)
    return inst(self, s, apply)


def timed(self, w):
    p = plugins[0]
    if w in p._views:
        asks[0] += 1
        if asks[0] % 40 == 0:
            combs = p._combines[w]
            runs = {k: [] for k in samples}
            for _ in range(REPEATS):
                hooks.VIEW_MEMO = 1
                runs["kept"].append(timeit.timeit(timer=T, stmt=lambda: awaits(self, w),
                                                  number=NUMBER))
                hooks.VIEW_MEMO = 0
                runs["found"].append(timeit.timeit(timer=T, stmt=lambda: awaits(self, w),
                                                   number=NUMBER))
                hooks.VIEW_MEMO = 1
                runs["body"].append(timeit.timeit(timer=T, stmt=
                    lambda: p._combines_found(w, combs), number=NUMBER))
            for k, v in runs.items():
                samples[k].append(statistics.median(v) / NUMBER * 1e6)
            viewed_sizes.append(len(p._viewed))
    return awaits(self, w)


hooks.Plugin.install = rec
Books.awaits = timed
w = build("anomaly", steps, 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
simulate(model, workers=workers, threads_per_worker=4, policy="tidegate", bandwidth="1GB/s",
         record_memory=False)
Books.awaits = awaits
hooks.Plugin.install = inst
print(f"(A) anomaly {steps} steps {workers} x 4: {len(samples['kept'])} asks timed of {asks[0]}"
      f" kept-view asks; _viewed {min(viewed_sizes)}-{max(viewed_sizes)} keys")
for k, v in samples.items():
    print(f"  {k:6s} median {statistics.median(v):.3f} us (range {min(v):.3f}-{max(v):.3f})")


class P:
    pass


def stamped(self, key, start, finish):
    if self._viewed and key in self._viewed and (start != "processing" or finish != "memory"):
        self._view_moved(key)
    if self._moves and key in self._moves and (start != "processing" or finish != "memory"):
        pass


def plain(self, key, start, finish):
    if self._moves and key in self._moves and (start != "processing" or finish != "memory"):
        pass


def hook_new(plugin, key):
    if key in plugin._moves:
        pass
    if key in plugin._viewed:
        pass


def hook_old(plugin, key):
    if key in plugin._moves:
        pass


size = max(viewed_sizes)
N = 500000
print(f"(B) {REPEATS * 2} alternated repeats of {N:,} calls; medians (min), ns a call")
for label, viewed in (("empty _viewed", {}), (f"_viewed of {size} keys",
                                               {("k", i): {"a"} for i in range(size)})):
    p = P()
    p._viewed = viewed
    p._moves = {}
    stmts = {"transition stamp": "stamped(p, k, 'waiting', 'processing')",
             "without": "plain(p, k, 'waiting', 'processing')",
             "replica test": "hook_new(p, k)", "replica without": "hook_old(p, k)"}
    runs = {k: [] for k in stmts}
    g = dict(globals(), p=p, k="x-1")
    for _ in range(REPEATS * 2):
        for name, stmt in stmts.items():
            runs[name].append(timeit.timeit(timer=T, stmt=stmt, number=N, globals=g) / N * 1e9)
    print(" ", label, {k: f"{statistics.median(v):.1f} ({min(v):.1f})" for k, v in runs.items()})
