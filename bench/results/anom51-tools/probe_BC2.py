# anom51 probe B: Placement._kept_load (the first combine's test for _combine_elsewhere) also
# where the reduction keeps all it loads (not reduced_enough) while the loads' group is no
# more than the cluster's threads (the whole reduction loads in one wave).
from tidegate.distributed import placement as P
_orig_kl = P.Placement._kept_load
def _kept_load(self, first):
    out = _orig_kl(self, first)
    if out is not None:
        return out
    if len(first.dependencies) != 1 or len(first.dependents) != 1:
        return None
    (load,) = first.dependencies
    if len(load.group) > self.scheduler.total_nthreads:
        return None
    if self._kept(load) is not first:
        return None
    return load.group.name
P.Placement._kept_load = _kept_load
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
