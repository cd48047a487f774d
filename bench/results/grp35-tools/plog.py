import tidegate.sim.cluster as _C
import tidegate.distributed.placement as _P
_CL = []
_orig_init = _C.SimCluster.__init__
def _init(self, *a, **k):
    _orig_init(self, *a, **k); _CL.append(self)
_C.SimCluster.__init__ = _init
import re as _re
def _short(k):
    s = str(k)
    if "load_" in s: return "L" + str(int(s.split("load_")[1][:4]))
    m = _re.findall(r"\d+", s); return "C%s.%s" % (m[0], m[1]) if len(m) > 1 else s
_orig_place = _P.Placement._place
def _place(self, ts, stimulus_id=None):
    r = _orig_place(self, ts, stimulus_id)
    now = _CL[-1].clock.now if _CL else -1
    bk = self.books
    parts = " ".join(f"{a[-4:-2]}:rp{b.roots_processing} ru{b.roots_untouched} o{b.owed} p{b.processing}" for a, b in bk.workers.items())
    own = bk.owed.get(ts.key)
    print(f"  @{now:.3f} PLACE {_short(ts.key)} -> {str(r[0])[-4:-2] if r[0] else None} owed={str(own[0])[-4:-2] if own else None} hint={[str(w)[-4:-2] for w in (r[1] or {})]} | {parts}")
    return r
_P.Placement._place = _place
