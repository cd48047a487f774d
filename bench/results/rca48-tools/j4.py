# small46 4(b): twin build() rechunk-add of STEPS on shapes, queue and tidegate JOIN_SPREAD 0/1
import sys
from tidegate import policy
from tidegate.sim import simulate
from tidegate.sim.workloads import build
steps = int(sys.argv[1])
model = build("rechunk-add", steps, 190e6, store=True).model()
for shape in sys.argv[2].split(","):
    W, T = map(int, shape.split("x"))
    for seed in range(int(sys.argv[3])):
        q, = simulate(model, workers=W, threads_per_worker=T, seed=seed, policy=["queue"], processes=1)
        out = []
        for v in (0, 1):
            policy.JOIN_SPREAD = v
            r, = simulate(model, workers=W, threads_per_worker=T, seed=seed, policy=["tidegate"], processes=1)
            out.append(f"J{v} {r.makespan / q.makespan:.3f} {max(r.peak_memory_per_worker) / max(q.peak_memory_per_worker):.3f} {r.bytes_transferred / 1e6:.0f}")
        print(steps, shape, seed, f"queue {q.makespan:.3f} {max(q.peak_memory_per_worker)/1e6:.0f} {q.bytes_transferred/1e6:.0f} |", " | ".join(out), flush=True)
