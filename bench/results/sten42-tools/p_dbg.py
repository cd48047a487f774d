# debug (sten42): what groups SPREAD_REGION cuts
from tidegate.distributed import placement as _pl
_orig = _pl.Placement._regions_of
def _regions_of(self, ts, _o=_orig):
    out = _o(self, ts)
    if out is not None:
        from collections import Counter
        plan = self._plan(ts)
        print("REGIONS", ts.group.name, len(ts.group), Counter(out.values()),
              "meetings", len(plan.meetings), "deep", plan.deep, "gather", plan.gather,
              "further", plan.further, "pair", plan.pair, "deps", len(ts.dependencies),
              "dependents", len(ts.dependents), flush=True)
    return out
_pl.Placement._regions_of = _regions_of
