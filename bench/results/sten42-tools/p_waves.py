# exploration (sten42): regions also where the group loads in waves (group up to
# PW_OVER x the caps summed); on 8-thread shapes the only other reader, SPREAD_CAP's
# spread 2, leaves the cap as it is (SPREAD_CAP_BELOW 8)
import tidegate.policy as _p
from tidegate.distributed import placement as _pl
_p.PW_OVER = 1
_orig = _pl.loads_at_once
def loads_at_once(group_size, caps_total, _o=_orig):
    return _o(group_size, caps_total * _p.PW_OVER)
_pl.loads_at_once = loads_at_once
