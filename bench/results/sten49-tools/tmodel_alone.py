import sys; sys.path.insert(0, "tests")
from tidegate import policy
import test_lacked_unblock as T
for lag in (0.002, 0.01):
    res = {}
    for a in (2, 3):
        policy.BESIDE_WIDE_ALONE = a
        res[a] = T._one_worker_stencil(8, lag)
    s2 = sum(t for t, _, _ in res[2]); s3 = sum(t for t, _, _ in res[3])
    print(lag, round(s2, 4), round(s3, 4), round(s3 / s2, 3), max(p3 - p2 for (_, p3, _), (_, p2, _) in zip(res[3], res[2])), max(p3 - q for (_, p3, q) in res[3]))
