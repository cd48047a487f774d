# seed46: bench/trace_twin.py's run with the plugin's placement calls, load admissions and
# parks / splits / wakes printed with the twin's clock (PYTHONPATH=src python calls.py SHAPE
# LAG SEED --only seed-anomaly [--set X=V]); merges seed44's placecalls.py / admitcalls.py
# and anom45's splitcalls.py.
import os
import sys
import traceback

from tidegate import books as B
from tidegate.distributed import admission as A

CLOCK = [None]


def now():
    try:
        return CLOCK[0].loop.time()
    except Exception:
        return -1.0


def k(x):
    return str(getattr(x, "key", x))[-14:]


orig_place = B.Books.place


def place(self, task, *a, **kw):
    out = orig_place(self, task, *a, **kw)
    fr = traceback.extract_stack(limit=3)[-2]
    print("t=%.4f PLACE %s -> %s partners %s via %s" % (now(), k(task), out,
          a[2] if len(a) > 2 else None, fr.name))
    return out


B.Books.place = place
orig_adm = B.Books._admits


def _admits(self, book, w, task, *a, **kw):
    out = orig_adm(self, book, w, task, *a, **kw)
    if "from-zarr" in str(task) and "original" not in str(task):
        print("t=%.4f   ADMIT %s %s -> %s proc %s rp %s ru %s owed %s" % (
            now(), k(task), w[-4:], out, book.processing, book.roots_processing,
            book.roots_untouched, book.owed))
    return out


B.Books._admits = _admits
orig_split = A.Admission._split


def _split(self, s, stimulus_id):
    CLOCK[0] = s
    print("t=%.4f SPLIT idle=%s parked=%s" % (now(), sorted(w[-4:] for w in self._idle),
          [(k(t), [w[-4:] for w in on]) for t, on in self._parked.items()]))
    return orig_split(self, s, stimulus_id)


A.Admission._split = _split
orig_poke = A.Admission._poke


def _poke(self, s, stimulus_id):
    CLOCK[0] = s
    return orig_poke(self, s, stimulus_id)


A.Admission._poke = _poke
orig_park = A.Admission._park


def _park(self, ts, on):
    print("t=%.4f PARK %s on %s" % (now(), k(ts), [w[-4:] for w in on]))
    return orig_park(self, ts, on)


A.Admission._park = _park
from tidegate.distributed import placement as P

for _name in ("_place", "_decide", "_owed_place", "_waits_again", "_still_withheld",
              "_by_held", "_first_share", "_unknown_pass"):
    def _wrap(_name=_name, _orig=getattr(P.Placement, _name)):
        def f(self, ts, *a, **kw):
            out = _orig(self, ts, *a, **kw)
            if "from-zarr" in str(ts.key) and "original" not in str(ts.key):
                print("t=%.4f %s%s %s -> %s" % (now(), "  " * (_name != "_place"), _name,
                      k(ts), (out[0][-4:] if out and out[0] else out and None,
                              [w[-4:] for w in (out[1] if out else ())])
                      if isinstance(out, tuple) else out))
            return out
        setattr(P.Placement, _name, f)
    _wrap()
bench = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, bench)
import runpy  # noqa: E402

runpy.run_path(os.path.join(bench, "trace_twin.py"), run_name="__main__")
