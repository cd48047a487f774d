# small46: bench/trace_twin.py's run with every Books.place / Books._admits call printed, and
# Placement._decide's hint (PYTHONPATH=src python pc.py SHAPE LAG SEED --only W [--set X=V]).
import os
import runpy
import sys
import traceback

from tidegate import books as B
from tidegate.distributed import placement as P

orig_place = B.Books.place


def place(self, task, known, group, partners, candidates, stimulus_id=None, *a, **kw):
    cands = list(candidates)
    out = orig_place(self, task, known, group, partners, iter(cands), stimulus_id, *a, **kw)
    fr = traceback.extract_stack(limit=3)[-2]
    lacks = a[0] if a else kw.get("lacks")
    print("PLACE", str(task)[:44], "->", out and out[-4:], "partners",
          {k[-4:]: v for k, v in partners.items()}, "cands", [c[-4:] for c in cands],
          "lacks", len(lacks or ()), "args", [x if not isinstance(x, (set, dict)) else
                                              sorted(str(y)[-4:] for y in x) for x in a[1:]],
          {k: v for k, v in kw.items() if k != "lacks"}, "from", fr.lineno, fr.name)
    return out


B.Books.place = place
orig_adm = B.Books._admits


def _admits(self, book, w, task, est, cc, sid, *a, **kw):
    out = orig_adm(self, book, w, task, est, cc, sid, *a, **kw)
    print("  ADMIT", str(task)[:44], w[-4:], out, "cc", cc, "est %.0f" % (est / 1e6), a, kw,
          "proc", book.processing, "rp", book.roots_processing, "ru", book.roots_untouched,
          "cap", book.cap)
    return out


B.Books._admits = _admits
orig_further = P.Placement._further


def _further(self, ts, plan):
    out = orig_further(self, ts, plan)
    print("  FURTHER", str(ts.key)[:44], {k[-4:]: v for k, v in out[0].items()}, "whole", out[1],
          "pair", plan.pair, "idle", sorted(a[-4:] for a in self._idle))
    return out


P.Placement._further = _further
bench = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, bench)
runpy.run_path(os.path.join(bench, "trace_twin.py"), run_name="__main__")
