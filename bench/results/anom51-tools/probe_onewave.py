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
