# print each gather-hint share decision (FURTHER_GATHER 2)
from tidegate.distributed import placement as P
_orig = P.Placement._hint_share
def _hint_share(self, ts, hint):
    out = _orig(self, ts, hint)
    ws = self.scheduler.workers
    print("HS", self.scheduler._clock() if hasattr(self.scheduler, "_clock") else "", ts.key,
          {w[-4:]: (n, P._of_group(ws[w], ts.group)) for w, n in hint.items() if w in ws},
          "->", sorted(w[-4:] for w in out))
    return out
P.Placement._hint_share = _hint_share
