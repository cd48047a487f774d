# anom51 probe B': probe B (a non-reducing first combine asked by _combine_elsewhere while its
# loads' group fits the cluster's threads) with its inputs' holders as the only candidates
# (no free worker holding none of them: there all its inputs are copied in).
import inspect, textwrap
from tidegate.distributed import placement as P
_orig_kl = P.Placement._kept_load
def _kept_load(self, first):
    self._anom_nr = False
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
