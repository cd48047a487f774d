# anom51 probe C2: only an exact tie of a consumer's own input bytes between workers (the
# anomaly's store: its load, read by its chunk-mean and it, against the mean, read by every
# store) goes to the tied worker whose input there has the fewest readers, where the plugin's
# answer was one of the tied workers (its other rules' answers stand).
from tidegate.distributed import placement as P
from tidegate.policy import SHARED_FANOUT
_o2 = P.Placement._decide_worker_non_rootish
def _dw(self, ts):
    out = _o2(self, ts)
    deps = ts.dependencies
    if out is None or len(deps) < 2:
        return out
    local, readers = {}, {}
    for d in deps:
        if d.nbytes <= 0 or len(d.dependents) >= SHARED_FANOUT or not d.dependencies \
                or not d.who_has or len(d.who_has) != 1:
            continue
        for h in d.who_has:
            local[h.address] = local.get(h.address, 0) + d.nbytes
            readers[h.address] = min(readers.get(h.address, 99), len(d.dependents))
    if len(local) < 2:
        return out
    best = max(local.values())
    tied = [a for a, b in local.items() if b == best]
    if len(tied) < 2 or out.address not in tied:
        return out
    pick = min(tied, key=lambda a: (readers[a], a != out.address))
    ws = self.scheduler.workers.get(pick)
    return out if ws is None or ws not in self.scheduler.running else ws
P.Placement._decide_worker_non_rootish = _dw
