from tidegate.distributed import placement as P
import time as _t
_orig = P.Placement._gather_share
def _gs(self, ts, hint, plan):
    out = _orig(self, ts, hint, plan)
    taken = {}
    for m, _ in plan.meetings:
        (m2,) = m.dependents
        for t in m2.dependencies:
            if t is m: continue
            w = P._taken_on(t, 3)
            if w: taken[w[-4:]] = taken.get(w[-4:], 0) + 1
    print("GS %.4f" % _t.time(), ts.key[1:], {w[-4:]: n for w, n in hint.items()}, "taken", taken, "free", [a[-4:] for a in self._free_iter()], "->", sorted(w[-4:] for w in out))
    return out
P.Placement._gather_share = _gs
