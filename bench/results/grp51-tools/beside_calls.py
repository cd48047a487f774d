"""beside_calls.py: what Placement._beside_partner answers for each getitem in the groupby store 4 x 2 (rescaled g1, seed 2) at SLICE_BESIDE_PARTNER 2: (moved, its input MB, roots_max MB, its reader's other inputs)."""
import sys, collections, cloudpickle
import tidegate.policy as P
from tidegate.sim import simulate
from tidegate.distributed.placement import Placement
from tidegate.distributed.tasks import _sole_pull
from dask.utils import key_split
P.SLICE_BESIDE_PARTNER = 2
dsk, out, took, size = cloudpickle.load(open("/tmp/grp51/grpq/g1.pkl", "rb"))
c = collections.Counter()
orig = Placement._beside_partner
def w(self, ts, ws):
    got = orig(self, ts, ws)
    if key_split(ts.key) == "getitem":
        big = _sole_pull(ts, self.books.roots_max)
        rd = next(iter(ts.dependents)) if len(ts.dependents) == 1 else None
        c[(got is not None, round((big.nbytes if big else -2) / 1e6, 2), round(self.books.roots_max / 1e6, 1),
           tuple(sorted((key_split(d.key), d.nbytes) for d in rd.dependencies if d is not ts)) if rd else None)] += 1
    return got
Placement._beside_partner = w
simulate(dsk, keys=out, workers=4, threads_per_worker=2, policy="tidegate", sizes=lambda k: size.get(k, 0),
         durations=lambda k: took.get(k, 1e-3), seed=2, bandwidth=1e9, outgoing_bandwidth=None, processes=1)
for k, v in c.most_common(8): print(v, k)
