"""test_lacked_unblock's one-worker stencil model (5 namings x 2 seeds) under variants:
cur (LACKED_UNBLOCK 1, TAIL_EPOCH_ANY 0), any (0, 1), off (0, 0), both (1, 1).
PYTHONPATH=src python bench/results/lack53-tools/tmodel_any.py [threads,lag ...]"""
import os
import sys
sys.path.insert(0, "tests")
from tidegate import policy  # noqa: E402
import test_lacked_unblock as T  # noqa: E402

VARS = {"cur": (1, 0), "any": (0, 1), "off": (0, 0), "both": (1, 1), "free": (0, 2),
        "free3": (0, 3)}
cells = [tuple(float(x) for x in c.split(",")) for c in sys.argv[1:]] or [
    (8, 0.002), (8, 0.01), (4, 0.002), (2, 0.002), (1, 0.002)]
for th, lag in cells:
    policy.BESIDE_WIDE_ALONE = int(os.environ.get("ALONE", 2))  # (2: as the test measures)
    out = {}
    for name, (u, a) in VARS.items():
        policy.LACKED_UNBLOCK, policy.TAIL_EPOCH_ANY = u, a
        out[name] = T._one_worker_stencil(int(th), lag)
    line = [f"1x{int(th)} lag {lag}:"]
    for name, res in out.items():
        s = sum(t for t, _, _ in res)
        over = sum(p > q for _, p, q in res)
        line.append(f"{name} {s:.3f} (pk>q {over}, max pk {max(p for _, p, _ in res)/1e6:.1f})")
    print("  ".join(line), flush=True)
policy.BESIDE_WIDE_ALONE = 3
