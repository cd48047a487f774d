"""(cpu39b, session 39) Which of Placement._still_withheld's tests fails where it answers None (twin anomaly 100 x 4, scale 1). python sw_why.py
(from the worktree root, PYTHONHASHSEED=0 PYTHONPATH=<src>)"""
import collections, sys
sys.path.insert(0, "bench")
import plugin_ops
from tidegate.distributed import placement
from tidegate.policy import may_fit_count
from tidegate.sim import simulate
from tidegate.sim.model import build_model
from tidegate.sim.workloads import build
P = placement.Placement
why = collections.Counter()
osw = P._still_withheld
def sw(self, ts, withheld, sid):
    r = osw(self, ts, withheld, sid)
    if r is None:
        _, entry, lacks, further, first = withheld
        books = self.books
        if not self._free or self._idle or books.changed or ts.key in books.owed:
            why["early"] += 1
        elif self._kept_walk(ts) is not entry:
            why["walk"] += 1
        elif entry[1][1] is None or entry[1][1][0]:
            why["hint"] += 1
        elif first is not None and self._splits(ts):
            why["splits"] += 1
        elif self._broadcast.restricts(self.scheduler, ts):
            why["restricts"] += 1
        elif may_fit_count(self._counts, books.opens(lacks) if further else 0):
            why["may_fit_count"] += 1
        else:
            why["?"] += 1
    return r
P._still_withheld = sw
w = build("anomaly", 1000, 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
r = simulate(model, workers=100, threads_per_worker=4, policy="tidegate", bandwidth="1GB/s", record_memory=False)
print(len(r.trace.tasks), why)
