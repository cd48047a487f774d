"""python stencil_moves.py [W] [V]: what Placement._beside_partner moves in the small table's
workload W (stencil) at 2x2 (naming 0, seed 0, lag 2): the task's group, its widely read
input's group and readers, its reader's group, and where it went."""
import collections
import os
import sys

sys.path.insert(0, "/work/wt/grp51/bench")
import wall29_small as S  # noqa: E402

import tidegate.policy as P  # noqa: E402
from dask.utils import key_split  # noqa: E402
from tidegate.distributed.placement import Placement  # noqa: E402
from tidegate.distributed.tasks import _sole_pull  # noqa: E402

W = sys.argv[1] if len(sys.argv) > 1 else "stencil"
P.SLICE_BESIDE_PARTNER = int(sys.argv[2]) if len(sys.argv) > 2 else 2
seen = collections.Counter()
orig = Placement._beside_partner


def wrapped(self, ts, ws):
    got = orig(self, ts, ws)
    if got is not None and got is not ws:
        big = _sole_pull(ts, self.books.roots_max)
        reader = next(iter(ts.dependents))
        seen[(key_split(ts.key), key_split(big.key), len(big.dependents),
              key_split(reader.key), len(ts.dependencies),
              tuple(sorted((key_split(d.key), d.nbytes, len(d.dependents))
                           for d in reader.dependencies if d is not ts)))] += 1
    return got


Placement._beside_partner = wrapped
measured = os.environ.get("MEASURED", "/tmp/grp51/small")
for name, model, graphs in S.models([W], measured, 1):
    r = S.twin(model, graphs[0], "tidegate", "2x2", 0.002, 0, None)
    print(name, "makespan", round(r.makespan, 3))
for k, v in seen.most_common(10):
    print(v, k)
