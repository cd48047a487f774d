# The bound's table: queue and tidegate with each forced placement (force.py), seeds x lags.
import os, sys, statistics
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import wall29_small as S
S.patch([os.path.join(os.path.dirname(os.path.abspath(__file__)), "force.py")])
modes = sys.argv[1].split(",")
lags = [float(x) for x in sys.argv[2].split(",")]
seeds = range(int(sys.argv[3]))
shape = sys.argv[4] if len(sys.argv) > 4 else "8x4"
name, model, graphs = next(S.models(["seed-rechunk-add"], os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "wall24-measured.json"), 1))
for lag in lags:
    for seed in seeds:
        q = S.twin(model, None, "queue", shape, lag, seed, 200e6)
        qp = max(q.peak_memory_per_worker)
        print(f"lag {lag*1e3:g} seed {seed} queue {q.makespan:.3f}s {qp/1e6:.0f}MB {q.bytes_transferred/1e6:.0f}MB", flush=True)
        for m in modes:
            os.environ["FORCE"] = m
            d = S.twin(model, None, "tidegate", shape, lag, seed, 200e6)
            dp = max(d.peak_memory_per_worker)
            print(f"   {m:8s} {d.makespan:.3f}s ({d.makespan/q.makespan:.3f}x) peak {dp/1e6:.0f}MB ({dp/qp:.3f}x) moved {d.bytes_transferred/1e6:.0f}MB ({d.bytes_transferred/q.bytes_transferred:.2f}x)", flush=True)
