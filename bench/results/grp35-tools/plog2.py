import tidegate.sim.cluster as _C
import tidegate.distributed.placement as _P
from dask.utils import key_split as _ks
import re as _re
_CL = []
_orig_init = _C.SimCluster.__init__
def _init(self, *a, **k):
    _orig_init(self, *a, **k); _CL.append(self)
_C.SimCluster.__init__ = _init
def _short(k):
    s = str(k); m = _re.findall(r", (\d+)", s)
    return _ks(k)[:14] + "(" + ",".join(m) + ")"
_orig_place = _P.Placement._place
def _place(self, ts, stimulus_id=None):
    r = _orig_place(self, ts, stimulus_id)
    now = _CL[-1].clock.now if _CL else -1
    if 0.8 < now < 1.8:
        bk = self.books
        parts = " ".join(f"{a[-4:-2]}:rp{b.roots_processing} ru{b.roots_untouched} o{b.owed} p{b.processing} cap{b.cap}" for a, b in bk.workers.items())
        own = bk.owed.get(ts.key)
        print(f"  @{now:.3f} PLACE {_short(ts.key)} -> {str(r[0])[-4:-2] if r[0] else None} owed={str(own[0])[-4:-2] if own else None} | {parts}")
    return r
_P.Placement._place = _place
