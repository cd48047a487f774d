import importlib.util, pathlib, sys
root = pathlib.Path("/work/wt/tail35")
sys.path.insert(0, str(root / "bench"))
spec = importlib.util.spec_from_file_location("wall24_twin", root / "bench" / "wall24_twin.py")
W = importlib.util.module_from_spec(spec); spec.loader.exec_module(W)
import tidegate.policy as P
from tidegate.sim import simulate
bd = W._bench(); bd._INPUTS["steps"] = 48
model = W.model_of(bd, "rechunk", 48, 3, root / "bench/results/wall24-measured.json")
for shape in [(4, 4), (2, 4), (3, 4)]:
    for lag in (0.002, 0.01):
        for v in (0, 1):
            P.PAIR_BUSY = v
            rows = []
            for seed in range(5):
                q, t = simulate(model, workers=shape[0], threads_per_worker=shape[1], policy=["queue", "tidegate"],
                                bandwidth=200e6, outgoing_bandwidth=200e6, latency=0.001, thread_lag=lag,
                                seed=seed, processes=1, record_memory=False)
                rows.append((max(t.peak_memory_per_worker) / 1e6, max(q.peak_memory_per_worker) / 1e6, t.makespan / q.makespan))
            print(shape, lag, v, [(round(a), round(b), round(c, 3)) for a, b, c in rows], round(sum(r[0] for r in rows) / sum(r[1] for r in rows), 3), flush=True)
