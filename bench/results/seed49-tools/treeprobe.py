# A probe (tr.py-style runs), not a rule: with TREE_PROBE set, a root group that loads whole
# at once and meets more than one task (a tree reduction's group beside its store: the
# anomaly) meets its wave's even share as its cap too, refused roots splitting
# (UNIT_STAGGER 6's third item). Asks whether the anomaly of 6 steps on 2 x 2 / 2 x 4 goes to
# three loads a worker and what it costs at 20 x 4.
from tidegate.distributed import placement as _P
from tidegate.policy import loads_at_once as _lao

TREE_PROBE = 1
_orig = _P.Placement._stagger


def _stagger(self, ts):
    out = _orig(self, ts)
    if out or not TREE_PROBE:
        return out
    size = len(ts.group)
    if size < 2 or not _lao(size, self._caps_summed()) or not ts.dependents:
        return out
    if len(self._plan(ts).meetings) < 2:
        return out
    return size, len(self.scheduler.running), True


_P.Placement._stagger = _stagger
