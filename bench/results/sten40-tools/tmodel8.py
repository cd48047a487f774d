"""tests/test_stencil.py's _stencil_at_2ms_summed on eight threads, BESIDE_WIDE off and on:
python bench/results/sten40-tools/tmodel8.py [THREADS] [LAG] (PYTHONPATH=src:tests)."""
import math
import sys

import test_stencil as t

from tidegate import policy

threads = int(sys.argv[1]) if len(sys.argv) > 1 else 8
lag = float(sys.argv[2]) if len(sys.argv) > 2 else 0.002
for v in (0, 4):
    policy.BESIDE_WIDE = v
    tide, queue = t._stencil_at_2ms_summed(threads=threads, peak_over=math.inf, lag=lag)
    print(f"BESIDE_WIDE {v}: tidegate {tide:.4f} s queue {queue:.4f} s ratio {tide / queue:.4f}")
