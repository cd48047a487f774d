import tidegate.distributed.placement as _PP, atexit
_PR = {}
_od = _PP.Placement._place
def _pl(self, ts, stimulus_id=None):
    _PR[str(ts.key)] = ts.priority
    return _od(self, ts, stimulus_id)
_PP.Placement._place = _pl
def _dumpp():
    import re
    xs = sorted(_PR.items(), key=lambda kv: kv[1])
    print("PRIO", " ".join("(" + ",".join(re.findall(r"\d+", k.split(",", 1)[1])) + ")" + str(p[-1]) for k, p in xs if "random" in k))
atexit.register(_dumpp)
