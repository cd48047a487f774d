"""rechunk18: a chunk read again (zarr, 32 MB) and split (a 16 MB copy) against a 16 MB spill
round trip through tidegate's SpillStore; medians of 30 interleaved reps, wall and CPU.
Needs rechunk18_diag.py's inputs ($INPUTS, default /tmp/rechunk18/inputs)."""
import os, tempfile, time, numpy as np, zarr, statistics, resource
from tidegate.spill import SpillStore
z = zarr.open_array(os.path.join(os.environ.get("INPUTS", "/tmp/rechunk18/inputs"), "a.zarr"), mode="r")
disk = SpillStore(tempfile.gettempdir(), 1e6)  # a 1 MB backlog: settle() waits for the write
def cpu(): r = resource.getrusage(resource.RUSAGE_SELF); return r.ru_utime + r.ru_stime
def reread(k):
    x = z[4*k:4*k+4]
    y = x[:, 500:].copy()   # the split the re-read serves (a copy, as dask's getitem)
    return y
def trip(k, piece):
    disk.put(k, piece, "p", piece.nbytes); disk.settle(); assert k not in disk._pending; v = disk.pop(k); return v
piece = np.random.random((4, 500, 1000))
A, B = [], []
for r in range(30):
    k = r % 25
    t, c = time.perf_counter(), cpu(); reread(k); A.append((time.perf_counter() - t, cpu() - c))
    t, c = time.perf_counter(), cpu(); trip(r, piece); B.append((time.perf_counter() - t, cpu() - c))
med = lambda L, i: statistics.median(x[i] for x in L)
print(f"re-read 32 MB + split 16 MB: wall {med(A,0)*1e3:.1f} ms cpu {med(A,1)*1e3:.1f} ms")
print(f"spill round trip 16 MB:      wall {med(B,0)*1e3:.1f} ms cpu {med(B,1)*1e3:.1f} ms")
disk.close()
