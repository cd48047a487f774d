import sys
sys.path.insert(0, "/work/wt/grp35/tests")
import tidegate.policy as P
from test_small_cluster_twin import _unique_loaders_named
from tidegate.sim import simulate
for v in (0, 1):
    P.GROUP_BUSY = v
    t_make = q_make = 0.0
    for n in ("", "-n1", "-n2"):
        g = _unique_loaders_named(48, n)
        for seed in (0, 1):
            q, t = simulate(g.dsk, keys=g.keys, sizes=g.sizes, durations=g.durations, workers=3, threads_per_worker=3, policy=["queue", "tidegate"], seed=seed, processes=1, record_memory=False)
            t_make += t.makespan; q_make += q.makespan
    print("GROUP_BUSY", v, round(t_make / q_make, 3))
