# anom52: the plugin fingerprints' moved configurations (anomaly 20 x 4, 300 steps, 1 GB/s,
# plain and under a 2 GB memory_limit at 0.5; both forms), tidegate KEPT_SHARE 0 / 3 and queue.
from tidegate import policy
from tidegate.sim import simulate
from tidegate.sim.workloads import build
for store in (False, True):
    model = build("anomaly", 300, 190e6, store=store).model()
    for lim, popts in ((None, {}), (2e9, dict(memory_limit=0.5))):
        opts = dict(workers=20, threads_per_worker=4, bandwidth="1GB/s")
        if lim:
            opts["worker_memory_limit"] = lim
        (q,) = simulate(model, policy=["queue"], **opts)
        row = []
        for k in (0, 3):
            policy.KEPT_SHARE = k
            r = simulate(model, policy="tidegate", **opts, **popts)
            row.append("K%d time %.3f peak %.3f bytes %.2f" % (
                k, r.makespan / q.makespan, max(r.peak_memory_per_worker)
                / max(q.peak_memory_per_worker), r.bytes_transferred / q.bytes_transferred))
        print("store" if store else "today", "limit" if lim else "free", " | ".join(row),
              flush=True)
