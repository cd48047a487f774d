# seed46: an ab_twin / trace_twin --patch: the seed-* workloads' zarr inputs in a folder of
# this process's own, written at wall29_small.STEPS (48 unless another patch sets it), not
# the shared /tmp/wall24-zarr (which holds whatever steps were written there last: its
# written-N markers are not checked against the arrays' shape).
import os
import sys
import tempfile

_b = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, _b)
try:
    import wall24_twin
finally:
    sys.path[:] = [p for p in sys.path if p != _b]
wall24_twin.FOLDER = tempfile.mkdtemp(prefix="tidegate-bench-seed46-")
import atexit  # noqa: E402
import shutil  # noqa: E402

atexit.register(shutil.rmtree, wall24_twin.FOLDER, ignore_errors=True)  # (733 MB a run)
