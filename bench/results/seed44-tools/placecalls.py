# seed44: bench/trace_twin.py's run with every Books.place call printed (PYTHONPATH=src python placecalls.py SHAPE LAG SEED --only W)
import sys, os, traceback
sys.argv = [sys.argv[0]] + sys.argv[1:]
from tidegate import books as B
orig = B.Books.place
def place(self, task, *a, **kw):
    out = orig(self, task, *a, **kw)
    fr = traceback.extract_stack(limit=3)[-2]
    print("PLACE", str(task)[:40], "->", out, "partners", a[2] if len(a) > 2 else None,
          "stagger", kw.get("stagger"), "line", fr.lineno, fr.name)
    return out
B.Books.place = place
bench = "" + os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..") + ""
sys.path.insert(0, bench)
import runpy
runpy.run_path(os.path.join(bench, "trace_twin.py"), run_name="__main__")
