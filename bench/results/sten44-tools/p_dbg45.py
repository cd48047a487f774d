exec(open("/work/wt/sten44/bench/results/sten44-tools/p_scan.py").read())
from tidegate.distributed import placement as _plx
_fu = _plx.Placement._further
def _further(self, ts, plan, _o=_fu):
    out = _o(self, ts, plan)
    _out.write(f"{_now():.4f} FURTHER {ts.key[1:]} -> {out} free={list(self._free)} open={self._open}\n")
    return out
_plx.Placement._further = _further
_hs = _plx.Placement._hint_share
def _hint_share(self, ts, hint, _o=_hs):
    out = _o(self, ts, hint)
    _out.write(f"{_now():.4f} HINTSHARE {ts.key[1:]} {hint} -> {out}\n")
    return out
_plx.Placement._hint_share = _hint_share
