# tracer patch: log every root decision with virtual time and the books per worker
import tidegate.sim.cluster as _C
import tidegate.distributed.placement as _P
_CL = []
_orig_init = _C.SimCluster.__init__
def _init(self, *a, **k):
    _orig_init(self, *a, **k); _CL.append(self)
_C.SimCluster.__init__ = _init
_orig_decide = _P.Placement._decide
def _short(k):
    import re
    s = str(k); m = re.findall(r"\d+", s.split(",", 1)[1]) if "," in s else []
    return s.split("'")[1].split("-")[0][:6] + "(" + ",".join(m[:2]) + ")" if "'" in s else s[:10]
def _decide(self, ts, stimulus_id=None):
    r = _orig_decide(self, ts, stimulus_id)
    now = _CL[-1].clock.now if _CL else -1
    bk = self.books
    parts = []
    for a, b in bk.workers.items():
        parts.append(f"{a[-4:-2]}:h{b.held/1e6:.0f}+e{b.estimated/1e6:.0f} o{b.owed} "
                     f"rp{b.roots_processing}"
                     f" ru{b.roots_untouched} p{b.processing}")
    print(f"  @{now:.4f} decide {_short(ts.key)} -> {str(r[0])[-4:-2] if r[0] else None} "
          f"partners={ {str(k)[-4:-2]: v for k, v in (r[1] or {}).items()} } | " + " ".join(parts))
    return r
_P.Placement._decide = _decide
_orig_byheld = _P.Placement._by_held
def _by_held(self, ts, partners, lacks, plan, stimulus_id):
    r = _orig_byheld(self, ts, partners, lacks, plan, stimulus_id)
    est = self.books.estimate(float('nan'), ts.group.name)
    owner = self.books.owed.get(ts.key, (None,))[0]
    hs = {a[-4:-2]: round(self._held_here(a, b, owner, est) / 1e6)
          for a, b in self.books.workers.items()}
    ps = {str(k)[-4:-2]: v for k, v in partners.items()}
    print(f"     by_held {_short(ts.key)} partners={ps} held={hs} -> "
          f"{r if r is None else str(r[0])[-4:-2]}")
    return r
_P.Placement._by_held = _by_held
_orig_place = _P.Placement._place
def _place(self, ts, stimulus_id=None):
    r = _orig_place(self, ts, stimulus_id)
    now = _CL[-1].clock.now if _CL else -1
    print(f"  @{now:.4f} PLACE {_short(ts.key)} -> {str(r[0])[-4:-2] if r[0] else None}")
    return r
_P.Placement._place = _place
