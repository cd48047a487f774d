import sys
sys.path.insert(0, "/work/wt/sten49b/tests  # (test_beside_least._runs: the test model, on / off)")
from tidegate import policy
import test_beside_least as t
for shape in [(3, 2), (8, 2), (4, 2)]:
    res = {}
    for v in (0, 1):
        policy.BESIDE_LEAST = v
        res[v] = t._runs(*shape)
    for v in (0, 1):
        r = res[v]
        over = sum(tp - qp > 1e6 for qp, tp, _, _ in r)
        print(shape, v, "pk over", over, "max", round(max(tp / qp for qp, tp, _, _ in r), 3),
              "sum", round(sum(x[3] for x in r), 4), "q", round(sum(x[2] for x in r), 4), flush=True)
