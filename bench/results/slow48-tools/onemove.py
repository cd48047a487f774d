# experiment: at most N pace moves per run (PACE_MOVES_MAX env), to measure the bound
from tidegate.distributed import placement as _P
_N = int(os.environ.get("PACE_MOVES_MAX", "1"))
_orig = _P.Placement._off_lagging
def _ol(self, ts, ws):
    best = _orig(self, ts, ws)
    if best is not ws and not self._lagging:
        n = getattr(self, "_xmoves", 0)
        if n >= _N:
            self._pace_moved.discard(ts.key)
            return ws
        self._xmoves = n + 1
    return best
_P.Placement._off_lagging = _ol
