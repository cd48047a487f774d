# anom45: _split / _park / _wake of the plugin printed over bench/trace_twin.py (PYTHONPATH=src python splitcalls.py 4x1 0.01 0 --only seed-anomaly --set CONSTANT_HANDLES=7)
import sys, os
from tidegate.distributed import admission as A
orig = A.Admission._split
def _split(self, s, stimulus_id):
    try:
        now = s.loop.time()
    except Exception:
        now = -1
    books = self.books
    print("SPLIT t=%.4f idle=%s free=%s parked=%s kept=%s" % (now, sorted(self._idle),
          [a for a in self._free_iter()],
          [(str(t.key)[-12:], [str(k)[-14:] for k in on]) for t, on in self._parked.items()],
          [str(t.key)[-12:] for t in self._parked_kept]))
    for a, b in sorted(books.workers.items()):
        print("   ", a, "proc", b.processing, "rp", b.roots_processing)
    return orig(self, s, stimulus_id)
A.Admission._split = _split
origpark = A.Admission._park
def _park(self, ts, on):
    try:
        now = self.scheduler.loop.time()
    except Exception:
        now = -1
    print("PARK t=%.4f" % now, str(ts.key)[-12:], [str(k)[-14:] for k in on])
    return origpark(self, ts, on)
A.Admission._park = _park
origwake = A.Admission._wake
def _wake(self, k):
    before = set(self._parked)
    r = origwake(self, k)
    print("WAKE", k, "unparked", [str(t.key)[-12:] for t in before - set(self._parked)], "further", [str(x)[-12:] for x in self._further_parks])
    return r
A.Admission._wake = _wake
bench = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, bench)
import runpy
runpy.run_path(os.path.join(bench, "trace_twin.py"), run_name="__main__")
