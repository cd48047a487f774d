import sys; sys.path.insert(0, "tests")
from tidegate import policy
import test_lacked_unblock as T
for th, lag in [(8, 0.002), (8, 0.01), (4, 0.002), (2, 0.002), (1, 0.002)]:
    res = {}
    for u in (0, 1):
        policy.LACKED_UNBLOCK = u
        res[u] = T._one_worker_stencil(th, lag)
    s0 = sum(t for t, _, _ in res[0]); s1 = sum(t for t, _, _ in res[1])
    print(th, lag, "sum", round(s0, 4), "->", round(s1, 4), f"{s1/s0:.3f}", "peaks MB old",
          sorted({round(p/1e6, 1) for _, p, _ in res[0]}), "new", sorted({round(p/1e6, 1) for _, p, _ in res[1]}),
          "queue", sorted({round(q/1e6) for _, _, q in res[0]}), flush=True)
