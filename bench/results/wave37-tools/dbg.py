import tidegate.distributed.admission as A, tidegate.distributed.placement as PL
_o = A.Admission._in_wave
def _in_wave(self, s, addr, key):
    _o(self, s, addr, key); print("  WAVE", addr[-4:-2], self._wave)
A.Admission._in_wave = _in_wave
_os = PL.Placement._over_share
def _ov(self, ts):
    r = _os(self, ts); print("  OVER", ts.key, r); return r
PL.Placement._over_share = _ov
