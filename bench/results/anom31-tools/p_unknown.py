# experiment: a root waiting for its own reduction whose reduction's size is unknown yet may be
# placed by held bytes (_by_held) as if reduced enough (UNKNOWN_SPLITS 1)
import math
import tidegate.policy as P
import tidegate.distributed.placement as PL
from tidegate.distributed.tasks import _returned
P.UNKNOWN_SPLITS = 0
_o = PL.Placement._splits
def _splits(self, ts):
    if P.UNKNOWN_SPLITS:
        first = self._kept(ts)
        if first is not None and math.isnan(_returned(first.group)):
            return True
    return _o(self, ts)
PL.Placement._splits = _splits
