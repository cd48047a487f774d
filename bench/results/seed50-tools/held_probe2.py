# probe (not a rule): a root waiting for its reduction, the reduction known NOT to reduce,
# whose partners' worker holds its even share of the root group, is placed by held bytes
# (_by_held) as a reducing one is.
from tidegate import policy as P_
from tidegate.distributed import placement as P
from tidegate.distributed.tasks import _of_group
from tidegate.policy import over_first_share
P_.HELD_PROBE = 1
_orig_decide = P.Placement._decide
_orig = P.reduced_enough
CUR = [None]
def _decide(self, ts, stimulus_id=None):
    CUR[0] = (self, ts)
    try:
        return _orig_decide(self, ts, stimulus_id)
    finally:
        CUR[0] = None
def reduced_enough(returned, size):
    if _orig(returned, size):
        return True
    if not P_.HELD_PROBE or CUR[0] is None:
        return False
    self, ts = CUR[0]
    found = self._partners(ts, set(), {}, set())
    if not found:
        return False
    p = max(found, key=found.__getitem__)
    s = self.scheduler
    ws = s.workers.get(p)
    return ws is not None and over_first_share(_of_group(ws, ts.group), 0, len(ts.group), len(s.running))
P.reduced_enough = reduced_enough
P.Placement._decide = _decide
