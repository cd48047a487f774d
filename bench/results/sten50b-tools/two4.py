import math, sys
sys.path.insert(0, "/work/wt/sten50b/tests")
from tidegate import policy
from test_stencil import _stencil_at_2ms_summed
for d in (2, 3):
    policy.BESIDE_DEEP = d
    for lag in (0.002, 0.01):
        t, q = _stencil_at_2ms_summed(threads=4, peak_over=math.inf, lag=lag)
        print(f"BESIDE_DEEP {d} lag {lag}: tide/queue summed {t/q:.3f} ({t:.3f} / {q:.3f})", flush=True)
