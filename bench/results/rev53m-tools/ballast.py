"""lack53 probe: the today-form anomaly (store=False) computed beside a 'ballast' of kept
outputs (N chunks of 190 MB loaded and multiplied, the products outputs held to the end),
so every worker holds >= AWAIT_HELD largest roots from the start. AWAIT_HELD 0 vs 30."""
import sys
import dask.array as da
from tidegate import policy
from tidegate.sim import simulate
from tidegate.sim.model import build_model
from tidegate.sim import workloads as wl
steps, shape, nb = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
w, t = map(int, shape.split("x"))
work = wl.build("anomaly", steps, 190e6, store=False)
side = wl.side_for(190e6)
ballast = (da.from_array(wl.NoData((nb, side, side)), chunks=(1, side, side),
                         name="open-ballast") * 2)
m = build_model([work.graph, ballast], None, sizes=work.sizes)
for seed in range(2):
    q, = simulate(m, workers=w, threads_per_worker=t, seed=seed, policy=["queue"],
                  record_memory=False, processes=1, bandwidth=1e9)
    out = []
    for v in (0, 30):
        policy.AWAIT_HELD = v
        d, = simulate(m, workers=w, threads_per_worker=t, seed=seed, policy=["tidegate"],
                      record_memory=False, processes=1, bandwidth=1e9)
        out.append("AWAIT_HELD %d time %.3f peak %.3f" % (
            v, d.makespan / q.makespan,
            max(d.peak_memory_per_worker) / max(q.peak_memory_per_worker)))
    print(steps, shape, "ballast", nb, "seed", seed, " | ".join(out), flush=True)
