# seed44: each root group's meeting plan where Placement._stagger acts (fp GRAPH... | bench SHAPE LAG SEED --only W)
import sys, os
from tidegate.distributed import placement as P
orig = P.Placement._stagger
seen = set()
def _stagger(self, ts):
    out = orig(self, ts)
    g = ts.group.name
    if out and g not in seen:
        seen.add(g)
        plan = self._plan(ts)
        ms = [m for m, _ in plan.meetings]
        print("PLAN", g[:30], "further", plan.further, "pair", plan.pair, "gather", plan.gather,
              "meetings", [(m.prefix.name, len(m.dependencies), len(m.dependents),
                            [d.prefix.name for d in list(m.dependents)[:2]]) for m in ms])
    return out
P.Placement._stagger = _stagger
mode = sys.argv.pop(1)
if mode == "fp":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import sim_fingerprints as F
    from tidegate.sim import simulate
    for g in sys.argv[1:]:
        x, keys, sizes, durations = F.graph(g)
        print("==", g)
        seen.clear()
        simulate(x, keys=keys, sizes=sizes, durations=durations, workers=20, threads_per_worker=4, policy="tidegate")
else:
    import runpy
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "trace_twin.py"), run_name="__main__")
