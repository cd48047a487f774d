# anom51's probe (B' + C2) behind a switch, for ab_twin.py / cells.py --patch:
#   tidegate.policy.ANOM51_PROBE: 0 off (main); 1 both; 2 B' alone; 3 C2 alone.
# B': a reduction's first combine of loads kept for it whose first task keeps ALL it loads
#   (not policy.reduced_enough: the twin anomaly's chunk-means) is asked of
#   Placement._combine_elsewhere like a reducing one, while the loads' group is no larger
#   than the cluster's threads (the whole reduction loads in one wave), with its inputs'
#   holders alone as candidates (no free worker holding none of its inputs).
# C2: a consumer whose own input bytes tie exactly between workers (the anomaly's store:
#   its load, read by its chunk-mean and it, against the mean, read by every store) goes to
#   the tied worker whose input there has the fewest readers, where the plugin's answer was
#   one of the tied workers (its other rules' answers stand).
import inspect, textwrap
from tidegate import policy as _POL
from tidegate.distributed import placement as P
from tidegate.policy import SHARED_FANOUT
if not hasattr(_POL, "ANOM51_PROBE"):
    _POL.ANOM51_PROBE = 0
_orig_kl = P.Placement._kept_load
def _kept_load(self, first):
    self._anom_nr = False
    out = _orig_kl(self, first)
    if out is not None or _POL.ANOM51_PROBE not in (1, 2):
        return out
    if len(first.dependencies) != 1 or len(first.dependents) != 1:
        return None
    (load,) = first.dependencies
    if len(load.group) > self.scheduler.total_nthreads:
        return None
    if self._kept(load) is not first:
        return None
    self._anom_nr = True
    return load.group.name
P.Placement._kept_load = _kept_load
src = textwrap.dedent(inspect.getsource(P.Placement._combine_elsewhere))
old = "candidates.update(itertools.islice(self._free_iter(), 3))"
assert old in src
src = src.replace(old, "if not getattr(self, '_anom_nr', False):\n            " + old)
ns = {}
exec(compile(src, P.__file__, "exec"), P.__dict__, ns)
P.Placement._combine_elsewhere = ns["_combine_elsewhere"]
_o2 = P.Placement._decide_worker_non_rootish
def _dw(self, ts):
    out = _o2(self, ts)
    deps = ts.dependencies
    if _POL.ANOM51_PROBE not in (1, 3) or out is None or len(deps) < 2:
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
