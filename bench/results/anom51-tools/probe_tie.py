# anom51 probe C: a consumer's input read by others too (the anomaly's mean, read by every
# store) weighs a hair less than one read by fewer (its load: its chunk-mean and store): ties go to the load's worker.
import inspect, textwrap
from tidegate.distributed import placement as P
src = textwrap.dedent(inspect.getsource(P.Placement._decide_worker_non_rootish))
old = "local[h.address] = local.get(h.address, 0) + d.nbytes"
assert old in src
src = src.replace(old, "local[h.address] = local.get(h.address, 0) + d.nbytes * (1 - 1e-4 "
                  "* len(d.dependents))")
ns = {}
exec(compile(src, P.__file__, "exec"), P.__dict__, ns)
P.Placement._decide_worker_non_rootish = ns["_decide_worker_non_rootish"]
