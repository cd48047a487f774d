import tidegate.distributed.placement as _PL
import tidegate.policy as _PP
_PP.XAGG = 0
_on = _PL.Placement._decide_worker_non_rootish
def _dw(self, ts):
    ws = _on(self, ts)
    if not _PP.XAGG or ws is None or len(ts.dependencies) < 3:
        return ws
    deps = ts.dependencies
    g = None
    for d in deps:
        if d.nbytes <= 0 or not d.who_has:
            return ws
        if g is None:
            g = d.group
        elif d.group is not g and _PP.XAGG & 2:
            return ws  # inputs of one group only (a tree reduction's combine)
    s = self.scheduler
    local = {}
    total = 0
    for d in deps:
        total += d.nbytes
        for h in d.who_has:
            local[h.address] = local.get(h.address, 0) + d.nbytes
    def peak(w):
        return w.nbytes + total - local.get(w.address, 0)
    cand = s.running if _PP.XAGG & 4 else [s.workers[a] for a in local]
    best = min(cand, key=lambda w: (peak(w), w.address))
    if peak(best) < peak(ws):
        return best
    return ws
_PL.Placement._decide_worker_non_rootish = _dw
