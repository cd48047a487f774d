"""Per root started in the twin's resample 2x2: its worker's books just before on_run, and
whether it came in by a completing pass; plus the held loads over time."""
import collections, os, sys, tempfile
from dask.utils import key_split
import tidegate.policy as P
from tidegate import books as B
from tidegate.sim import simulate
from tidegate.sim.workloads import resample, resample_durations, resample_sizes
NY, NX = 180, 360
most = int(sys.argv[1]); build = int(sys.argv[2]) if len(sys.argv) > 2 else 0
P.FREES_SLOT_THREADS = most
rows = []
orig = B.Books.on_run
def on_run(self, task, w, root, group, known, stimulus_id=None):
    if root:
        b = self.workers[w]
        passed = w in self._pass_ok.get(task, ())
        rows.append((str(task)[:16], str(task)[-12:], w[-5:], b.processing, b.roots_processing,
                     b.roots_untouched, b.owed, b.passes, passed))
    return orig(self, task, w, root, group, known, stimulus_id)
B.Books.on_run = on_run
d = tempfile.mkdtemp(prefix="one28-diag-")
for k in range(build + 1):
    w = resample(os.path.join(d, f"in{k}.zarr"), ny=NY, nx=NX)
rows.clear()
r = simulate(w.graph, workers=2, threads_per_worker=2, policy="tidegate",
             sizes=resample_sizes(30, NY, NX), durations=resample_durations(30, NY, NX))
print("peak", [round(p / 1e6, 1) for p in r.peak_memory_per_worker],
      "makespan", round(r.makespan, 3))
print("root           i  worker proc rproc untouched owed passes passed")
for x in rows: print(*x)
print("passed:", sum(x[-1] for x in rows), "of", len(rows))
