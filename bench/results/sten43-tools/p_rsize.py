# --patch for bench/ab_twin.py (sten43): a root placed by its region meets a cap of at most
# its region's size less RS_LESS (0: off, main's region_cap), as well as SPREAD_REGION_SHARE
# of the threads. Hypothesis test: a region smaller than the share's cap (8 x 8: 4-5 blocks
# a worker, cap 7) loads whole at once and holds every block and interior together.
import collections as _c
from tidegate import policy as _p
from tidegate.distributed import placement as _pl
_p.RS_LESS = 0
_SIZE = {}
_CUR = [0]
_ro = _pl.Placement._regions_of
def _regions_of(self, ts):
    out = _ro(self, ts)
    if out is not None:
        for a, n in _c.Counter(out.values()).items():
            _SIZE[ts.group.name, a] = n
    return out
_pl.Placement._regions_of = _regions_of
_rp = _pl.Placement._region_place
def _region_place(self, ts, target, stimulus_id):
    _CUR[0] = _SIZE.get((ts.group.name, target), 0)
    try:
        return _rp(self, ts, target, stimulus_id)
    finally:
        _CUR[0] = 0
_pl.Placement._region_place = _region_place
_rc = _p.region_cap
def region_cap(cap, threads):
    c = _rc(cap, threads)
    if _p.RS_LESS and _CUR[0]:
        c = min(c, max(1, _CUR[0] - _p.RS_LESS))
    return c
_p.region_cap = region_cap
