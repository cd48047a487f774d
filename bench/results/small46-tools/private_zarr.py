# small46 (seed46's idea, bench/results/seed46-tools/private_zarr.py): an ab_twin --patch
# giving the seed-* workloads' zarr inputs a folder of this process's own, not the shared
# /tmp/wall24-zarr, which other processes rewrite at other step counts meanwhile (a run
# of 16 steps crashed on arrays of 144 and 16 steps). Removed at exit.
import atexit
import os
import shutil
import sys
import tempfile

_b = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, _b)
try:
    import wall24_twin
finally:
    sys.path[:] = [p for p in sys.path if p != _b]
wall24_twin.FOLDER = tempfile.mkdtemp(prefix="tidegate-bench-small46-")
atexit.register(shutil.rmtree, wall24_twin.FOLDER, ignore_errors=True)
