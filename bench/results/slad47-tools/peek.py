import tidegate.distributed.placement as P
_orig = P.Placement._stagger
seen = set()
def _stagger(self, ts):
    r = _orig(self, ts)
    g = ts.group.name
    if g not in seen:
        seen.add(g)
        plan = self._plan(ts)
        print("STAGGER", ts.key, r, "meetings", [(m.key, v.key) for m, v in plan.meetings],
              "inputs", [[(e[-2], e[-1], len(e)) for e in ins] for ins in plan.inputs],
              "deps of m", [d.key for d in plan.meetings[0][0].dependencies] if plan.meetings else None)
    return r
P.Placement._stagger = _stagger
