# anom45: twin anomaly 24 steps 20x4 (sim_fingerprints cell), roots whose start or worker differ, SPLIT_WOKEN 0 vs 1
from tidegate import policy
from tidegate.sim import simulate
from tidegate.sim.workloads import build
res = {}
for sw in (0, 1):
    policy.SPLIT_WOKEN = sw
    w = build("anomaly", steps=24, chunk_bytes=50e6, store=False)
    t, = simulate(w.model(), workers=20, threads_per_worker=4, policy=["tidegate"], processes=1)
    res[sw] = {s.key: (s.start, s.worker) for s in t.trace.tasks if s.root}
a, b = res[0], res[1]
diff = [(k, a[k], b[k]) for k in a if abs(a[k][0] - b[k][0]) > 1e-6 or a[k][1] != b[k][1]]
print(len(a), "roots;", len(diff), "differ")
for k, x, y in sorted(diff, key=lambda d: d[1][0])[:12]:
    print(str(k)[-28:], "%.4f %s -> %.4f %s" % (x[0], x[1][-5:], y[0], y[1][-5:]))
