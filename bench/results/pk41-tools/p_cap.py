# hypothesis test (pk41): fewer roots at once on wide workers (all roots, not a rule)
import math
import tidegate.policy as _p
_p.PK_CAP = 0
def _root_cap(self, threads, _orig=_p.Policy.root_cap):
    c = _orig(self, threads)
    if _p.PK_CAP and threads >= 4:
        return min(c, _p.PK_CAP * threads // 8)
    return c
_p.Policy.root_cap = _root_cap
