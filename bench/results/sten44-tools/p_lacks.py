exec(open("/work/wt/sten44/bench/results/sten44-tools/p_scan.py").read())
from tidegate.distributed import placement as _plx
_wk = _plx.Placement._walk
def _walk(self, ts, plan, tops=None, _o=_wk):
    out = _o(self, ts, plan, tops)
    if "random_sample" in str(ts.key) and _now() < 0:
        lk = sorted(str(r.key[1:]) for r in out[1])
        _out.write(f"{_now():.4f} WALK {ts.key[1:]} lacks={len(lk)} {lk} meetings={len(plan.meetings)} {[str(m.key if hasattr(m,'key') else m)[:40] for m in plan.meetings][:12]}\n")
    return out
_plx.Placement._walk = _walk
