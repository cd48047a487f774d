# sten47 experiment: SPREAD_RING env LATE_RING (default 3) after the graph's arrival, EARLY_RING
# (default 0) at it
# (the twin's clock past env LATE_AT s, default 0.0005): the roots placed at arrival (dask's
# transition order, not priority order) reserve every meeting's lacks, as with ring 0.
import os
from tidegate import policy as _p
from tidegate.sim import cluster as _cl
_R = int(os.environ.get("LATE_RING", "3"))
_E = int(os.environ.get("EARLY_RING", "0"))
_AT = float(os.environ.get("LATE_AT", "0.0005"))
_CL = []
_init = _cl.SimScheduler.__init__
def _i(self, cluster, *a, **k):
    _CL[:] = [cluster]
    return _init(self, cluster, *a, **k)
_cl.SimScheduler.__init__ = _i
_mp = _p.meeting_partners
def _meeting_partners(*a, **k):
    if _p.SPREAD_RING:  # (the A/B's side with the ring)
        old = _p.SPREAD_RING
        _p.SPREAD_RING = _R if _CL and _CL[0].clock.now > _AT else _E
        try:
            return _mp(*a, **k)
        finally:
            _p.SPREAD_RING = old
    return _mp(*a, **k)
_p.meeting_partners = _meeting_partners
from tidegate.distributed import tasks as _t
_t.meeting_partners = _meeting_partners
