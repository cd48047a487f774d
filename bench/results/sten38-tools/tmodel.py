"""tests/test_stencil.py's _stencil_at_2ms_summed model with a switch at two values:
python tmodel.py THREADS LAG NAME OLD NEW (run from the worktree's tests/ dir on sys.path).
Prints tidegate / queuing summed makespans and each run's peaks (MB) per side."""
import sys, math
sys.path.insert(0, "tests")
import dask.array as da
from tidegate import policy
from tidegate.distributed import install
import test_stencil as T
from _namings import NAMINGS, renamed
from tidegate.sim import simulate
from tidegate.sim.model import build_model

threads, lag, name, old, new = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
install.LIGHT_RELEASE = True
a = da.random.RandomState(2).random((6000, 6000), chunks=1000)
x = a.map_overlap(T._double, depth=1, boundary="none", name="stencil-a").std(axis=0)
model = build_model(x, sizes=T.REDUCED, durations=T.MEASURED, finalize=True)
for v in (old, new):
    setattr(policy, name, type(getattr(policy, name))(v))
    sq = st = 0.0; over = []
    for salt in NAMINGS:
        for seed in (0, 1):
            q, t = simulate(renamed(model, salt), workers=2, threads_per_worker=threads,
                            bandwidth=200e6, outgoing_bandwidth=200e6, latency=0.001,
                            thread_lag=lag, seed=seed, policy=["queue", "tidegate"],
                            record_memory=False, processes=1)
            sq += q.makespan; st += t.makespan
            pq, pt = max(q.peak_memory_per_worker), max(t.peak_memory_per_worker)
            over.append(round((pt - pq) / 1e6, 2))
    print(f"{name}={v} threads {threads} lag {lag}: tidegate/queue {st / sq:.4f}  peak - queue's per run (MB): {over}")
