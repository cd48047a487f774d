"""Diagnostic (unseen15, issue 10): vorticity below its working set, one fresh process:
per group, the Governor's footprint (highest of the latest readings, past the output) and
typical (median), the inputs it was read with, tasks at once, and the RSS beyond held results
at every ask. Inputs are written by a child process first (written here, glibc's freed heap
hid the compute's growth: 1.45 tasks at once against 0.91). FLOOR_SHARE=x patches
bridge.FLOOR_SHARE.

    FLOOR_SHARE=0.15 PYTHONPATH=src python bench/results/unseen15-below-diag.py 200e6 100
"""
import sys, json, tempfile
import os, time
import tidegate, tidegate.measure as M
import tidegate.bridge as B
if os.environ.get("FLOOR_SHARE"):
    B.FLOOR_SHARE = float(os.environ["FLOOR_SHARE"])
from tidegate.workloads import build, make_inputs
govs = []
orig = M.Governor.start
def start(self):
    govs.append(self); return orig(self)
M.Governor.start = start
import tidegate.local as L
NAMES = []
ow = L._warn_fewer_threads
def wf(governor, limit, stats, asked, share, names):
    NAMES.append(names); return ow(governor, limit, stats, asked, share, names)
L._warn_fewer_threads = wf
orp = L._representative_inputs
def rp(graph):
    NAMES.append(list(graph.group_names)); return orp(graph)
L._representative_inputs = rp
limit = float(sys.argv[1])
d = tempfile.mkdtemp(prefix="unseen15-diag-")
import subprocess
steps = int(sys.argv[2]) if len(sys.argv) > 2 else 100
subprocess.run([sys.executable, "-c", f"from tidegate.workloads import make_inputs; make_inputs({d!r}, {steps})"], check=True)
y = build("vorticity", {n: f"{d}/{n}.zarr" for n in "ab"}, d)
stats = tidegate.RunStats()
import dask
from tidegate.trace import collecting
t0 = time.perf_counter()
with collecting() as traces:
    dask.compute(y, scheduler="tidegate", num_workers=2, memory_limit=limit, stats=stats)
g = govs[0]
names = traces[0].tasks and None
from collections import Counter
tasks = traces[0].tasks
grp = {}
for t in tasks:
    grp.setdefault(t.group, []).append(t)
span = max(t.stop for t in tasks) - min(t.start for t in tasks)
print("wall", time.perf_counter() - t0, "written", stats.spill_file_bytes / 1e6, "fewest", stats.fewest_threads, "at once", sum(t.stop - t.start for t in tasks) / span, "peak", g.peak / 1e6, "usable", g.usable / 1e6)
for k in sorted(g.footprint, key=lambda k: -g.footprint[k]):
    nm = NAMES[0][k] if NAMES else k
    n = grp.get(nm, [])
    print(f"{str(nm)[:50]:50s} n={len(n):3d} foot={g.footprint[k]/1e6:6.1f} typ={g.typical(k)/1e6:6.1f} sized={g.sized.get(k,0)/1e6:6.1f} dur={sum(t.stop-t.start for t in n)/max(1,len(n))*1e3:5.1f}ms out={max((t.nbytes for t in n), default=0)/1e6:5.1f}")
import shutil; shutil.rmtree(d)
import numpy as np
ov = np.array([h[3] for h in g.history]) / 1e6
print("over at asks: min %.1f p10 %.1f p50 %.1f p90 %.1f n %d" % (ov.min(), *np.percentile(ov, [10, 50, 90]), len(ov)))
hi = np.array([h[0] - h[1] for h in g.history]) / 1e6
print("high-held: min %.1f p10 %.1f p50 %.1f" % (hi.min(), *np.percentile(hi, [10, 50])))
