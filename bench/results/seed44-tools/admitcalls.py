# seed44: bench/trace_twin.py's run with every Books.admit call printed (PYTHONPATH=src python admitcalls.py SHAPE LAG SEED --only W)
import sys, os
from tidegate import books as B
orig = B.Books._admits
def _admits(self, book, w, task, est, cc, sid, progress=True, reserved=0, spread=False, waiting=0,
            opens=0, awaits=None, pair=False, region=0, unit=0, per_worker=0.0):
    out = orig(self, book, w, task, est, cc, sid, progress, reserved, spread, waiting, opens,
               awaits, pair, region, unit, per_worker)
    if "getitem" in str(task) or "read" in str(task):
        print("ADMIT", str(task)[20:60], w[-4:], out, "unit", unit, "proc", book.processing,
              "rp", book.roots_processing, "ru", book.roots_untouched, "owed", book.owed,
              "idle", self.may_progress(book, w))
    return out
B.Books._admits = _admits
bench = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, bench)
import runpy
runpy.run_path(os.path.join(bench, "trace_twin.py"), run_name="__main__")
