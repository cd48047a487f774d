"""Each admission asked of the tie graph's roots under tidegate (Books._admits wrapped):
time, root, worker, answer, and the worker's book (processing, roots processing, untouched,
owed, cap, passes) plus the reserved / opens / spread arguments.
usage: admit_story.py N SHAPE [MB] [UNTIL_S] [switch=value ...]"""
import os
import sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tidegate.policy as P
from tidegate import books as B
from tidegate.distributed import Plugin
from tie_probe import run

held = []
orig_install = Plugin.install


def install(self, scheduler):
    held.append((self, scheduler))
    return orig_install(self, scheduler)


Plugin.install = install
orig = B.Books._admits
until = float(sys.argv[4]) if len(sys.argv) > 4 else 1.3


NAMES = ("progress", "reserved", "spread", "waiting", "opens", "awaits", "pair", "region",
         "unit", "wave", "cuts")


def _admits(self, book, w, task, est, cc, stim, *a, **kw):
    ok = orig(self, book, w, task, est, cc, stim, *a, **kw)
    kw = dict(zip(NAMES, a), **kw)
    reserved, opens = kw.pop("reserved", 0), kw.pop("opens", 0)
    spread, waiting = kw.pop("spread", False), kw.pop("waiting", 0)
    now = held[0][1].loop_time() if held and hasattr(held[0][1], "loop_time") else None
    print(f"{stim} {task} {w[-4:]} ok={ok} proc={book.processing} rp={book.roots_processing}"
          f" unt={book.roots_untouched} owed={book.owed} cap={book.cap} passes={book.passes}"
          f" res={reserved} opens={opens} spread={spread} wait={waiting}"
          f" {dict((k, v) for k, v in kw.items() if v)}")
    if os.environ.get("OWED"):
        print("   owed", {str(k): (v[0][-4:], str(v[1])) for k, v in self._owed.items()})
    return ok


B.Books._admits = _admits
import tidegate.books_admission as BA
if hasattr(BA, "Admission"):
    pass
n = int(sys.argv[1]); shape = sys.argv[2]
mb = float(sys.argv[3]) if len(sys.argv) > 3 else 100
for a in sys.argv[5:]:
    k, v = a.split("=")
    setattr(P, k, type(getattr(P, k))(float(v)) if "." in v else int(v))
r = run(n, shape, "tidegate", 0, mb * 1e6)
print("time", r.makespan)
