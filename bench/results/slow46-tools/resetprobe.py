import sys, os
from tidegate import policy
sys.path.insert(0, "/work/wt/slow46/tests"); sys.path.insert(0, "/work/wt/slow46/bench")
from tidegate.distributed import hooks
from tidegate.distributed.hooks import _uneven
import twin_slow_worker as T
log = []
left = hooks.Plugin._left_processing
def checking(self, key, *a, **kw):
    before = set(self._uneven)
    left(self, key, *a, **kw)
    now = {g for g, p in self._pace.items() if _uneven(p)}
    log.append((before, set(self._uneven), now))
hooks.Plugin._left_processing = checking
for ws in (1, 2, 3):
    policy.WAKE_SAMPLES = ws
    for mode, f, w in (("group", 4.0, 4), ("worker", 2.0, 4), ("group", 3.0, 2), ("worker", 2.2, 2), ("group", 3.0, 3)):
        log.clear()
        out = T.run(f, mode=mode, workers=w)
        sets = sum(1 for b, a, n in log if a and not b); resets = sum(1 for b, a, n in log if b and not a)
        bad = sum(1 for b, a, n in log if a != n)
        print(ws, mode, f, w, "sets", sets, "resets", resets, "mismatch", bad, out["tidegate"]["makespan"])
