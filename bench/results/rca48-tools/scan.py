# Does policy.spreads_join's structural test (a two-array join, both sides no more than the
# running workers, loading at once) ever hold in the small table's workloads? tidegate runs
# at SHAPE (the most workers: the test is monotone in them), each root's _decide counted.
import sys, os, collections
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import wall29_small as S
from tidegate.distributed import placement as P
from tidegate import policy
hits = collections.Counter()
orig = P.Placement._join_spread
def js(self, ts):
    size = 2 * len(ts.group)
    ok = policy.loads_at_once(size, self._caps_summed()) and size <= len(self.scheduler.running)
    hits[(ts.group.name[:20], "pair", "holds" if ok else "not", "idle" if self._idle else "busy")] += 1
    return orig(self, ts)
P.Placement._join_spread = js
names = sys.argv[1].split(",")
shape = sys.argv[2]
for name, model, graphs in S.models(names, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "wall24-measured.json"), 1):
    hits.clear()
    r = S.twin(model, None, "tidegate", shape, 0.002, 0, 200e6)
    print(name, shape, f"{r.makespan:.3f}", dict(hits) or "no pair roots", flush=True)
